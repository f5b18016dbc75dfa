// Damaged and hostile apitrace input: never a crash, never an allocation sized by a lie, every
// complete call before the damage kept, then `FILE:OFFSET: what is wrong`.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "apitrace_test_support.h"
#include "support/sweep.h"
#include "trace_encoder.h"

namespace rtrace::apitrace::test {
namespace {

const FunctionDef kDraw{4, "draw", {"mode", "data", "list"}};
const FunctionDef kQuery{5, "query", {"what"}};
const EnumDef kMode{1, {{"TRIANGLES", 4}}};

// A small trace and, for each call, the stream size once the event completing it is written.
struct Sample {
  std::string stream;
  std::vector<std::size_t> complete_at;
  std::vector<std::string> lines;  // the dump line of each completed call, in order
};

Sample sample() {
  Sample s;
  TraceEncoder t(6, {{"process.name", "damage"}});
  for (int i = 0; i < 6; ++i) {
    const auto a = t.enter(kDraw, 0);
    t.arg(0), t.enumeration(kMode, 4);
    t.arg(1), t.blob(std::string(static_cast<std::size_t>(10 * i), 'x'));
    t.arg(2), t.array(2), t.string("s"), t.real64(1.5);
    t.end();
    const auto b = t.enter(kQuery, 1);
    t.arg(0), t.uint_value(static_cast<std::uint64_t>(i)), t.end();
    t.leave(a), t.end();
    s.complete_at.push_back(t.stream().size());
    s.lines.push_back(std::to_string(a) + " draw(mode = TRIANGLES, data = blob(" +
                      std::to_string(10 * i) + "), list = {\"s\", 1.5})\n");
    t.leave(b), t.ret(), t.sint(-i), t.end();
    s.complete_at.push_back(t.stream().size());
    s.lines.push_back(std::to_string(b) + " query(what = " + std::to_string(i) +
                      ") = " + std::to_string(-i) + "\n");
  }
  s.stream = t.stream();
  return s;
}

const std::string kHeaderLine = "// process.name = \"damage\"\n";

TEST(ApitraceDamage, StreamCutAnywhereKeepsEveryCallCompletedBeforeTheCut) {
  const Sample s = sample();
  const std::size_t header_end = s.stream.find('\0', 2) + 1;  // after the empty property name
  for (const std::size_t cut :
       rtrace::test::sweep(header_end + 1, s.stream.size(), s.complete_at)) {
    const DumpResult r = dump_bytes(snappy_container(s.stream.substr(0, cut)));
    std::string expected = kHeaderLine;
    std::size_t completed = 0;
    while (completed < s.complete_at.size() && s.complete_at[completed] <= cut) {
      expected += s.lines[completed++];
    }
    ASSERT_EQ(r.text.substr(0, expected.size()), expected) << "cut at " << cut;
    // What follows are the calls still in flight, flagged incomplete.
    std::string rest = r.text.substr(expected.size());
    for (std::size_t nl; (nl = rest.find('\n')) != std::string::npos; rest.erase(0, nl + 1)) {
      EXPECT_NE(rest.substr(0, nl).find("// incomplete"), std::string::npos)
          << "cut at " << cut << ": " << rest;
    }
    const bool at_event_end =
        std::find(s.complete_at.begin(), s.complete_at.end(), cut) != s.complete_at.end();
    if (!at_event_end) {
      EXPECT_TRUE(!r.warnings.empty() || !r.error.empty() || r.calls > completed)
          << "cut at " << cut;
    }
  }
}

TEST(ApitraceDamage, FileCutAnywhereNeverLosesWhatDecompressed) {
  const Sample s = sample();
  const std::string file = snappy_container(s.stream, 97);  // many small chunks
  const DumpResult whole = dump_bytes(file);
  ASSERT_EQ(whole.error, "");
  std::string all = kHeaderLine;
  for (const std::string& line : s.lines) {
    all += line;
  }
  ASSERT_EQ(whole.text, all);
  std::size_t previous_calls = 0;
  for (const std::size_t cut : rtrace::test::sweep(0, file.size())) {
    const DumpResult r = dump_bytes(file.substr(0, cut));
    if (cut < 8) {
      EXPECT_NE(r.error, "") << "cut at " << cut;  // no header
      continue;
    }
    // Complete calls form a prefix of the whole dump, growing with the cut.
    std::string complete;
    std::size_t n = 0;
    std::string text = r.text;
    for (std::size_t nl; (nl = text.find('\n')) != std::string::npos; text.erase(0, nl + 1)) {
      const std::string line = text.substr(0, nl + 1);
      if (line.find("// incomplete") == std::string::npos) {
        complete += line;
        n += line.starts_with("//") ? 0 : 1;
      }
    }
    ASSERT_EQ(all.substr(0, complete.size()), complete) << "cut at " << cut;
    EXPECT_GE(n, previous_calls) << "cut at " << cut;
    previous_calls = n;
  }
}

// Two good calls, then `damage`, then a good call that must not be read.
DumpResult after_two_calls(const std::function<void(TraceEncoder&)>& damage,
                           std::size_t* damage_offset = nullptr) {
  TraceEncoder t(6);
  for (int i = 0; i < 2; ++i) {
    const auto n = t.enter(kQuery);
    t.arg(0), t.uint_value(7), t.end();
    t.leave(n), t.end();
  }
  if (damage_offset != nullptr) {
    *damage_offset = t.stream().size();
  }
  damage(t);
  const auto n = t.enter(kQuery);
  t.arg(0), t.uint_value(8), t.end();
  t.leave(n), t.end();
  return dump_bytes(snappy_container(t.stream()));
}

const std::string kTwoCalls = "0 query(what = 7)\n1 query(what = 7)\n";

TEST(ApitraceDamage, UnknownEventByteIsAnErrorAtItsOffset) {
  std::size_t at = 0;
  const DumpResult r = after_two_calls([](TraceEncoder& t) { t.byte(0x07); }, &at);
  EXPECT_EQ(r.text, kTwoCalls);
  EXPECT_EQ(r.error, "t.trace:" + std::to_string(at) +
                         ": unknown event 0x07 (expected 0x00 enter or 0x01 leave)");
}

TEST(ApitraceDamage, UnknownValueTypeAndDetail) {
  std::size_t at = 0;
  DumpResult r =
      after_two_calls([](TraceEncoder& t) { t.enter(kQuery), t.arg(0), t.byte(0x10); }, &at);
  EXPECT_EQ(r.text, kTwoCalls);
  EXPECT_EQ(r.error, "t.trace:" + std::to_string(at + 5) + ": unknown value type 0x10");
  r = after_two_calls([](TraceEncoder& t) { t.enter(kQuery), t.byte(0x09); }, &at);
  EXPECT_EQ(r.text, kTwoCalls);
  EXPECT_EQ(r.error, "t.trace:" + std::to_string(at + 3) + ": unknown call detail 0x09");
}

TEST(ApitraceDamage, HostileLengthsAndCountsAreErrorsNotAllocations) {
  const std::vector<std::function<void(TraceEncoder&)>> hostile = {
      [](TraceEncoder& t) { t.enter(kQuery), t.arg(0), t.byte(0x08), t.uint(1ULL << 62); },
      [](TraceEncoder& t) { t.enter(kQuery), t.arg(0), t.array(1ULL << 40); },
      [](TraceEncoder& t) { t.enter(kQuery), t.arg(0), t.byte(0x0f), t.uint(~0ULL); },
      [](TraceEncoder& t) { t.byte(0x00), t.uint(0), t.uint(77), t.uint(1ULL << 50); },
      [](TraceEncoder& t) {
        t.byte(0x00), t.uint(0), t.uint(78), t.bytes("f"), t.uint(1ULL << 33);
      },
      [](TraceEncoder& t) {
        t.enter(kQuery), t.arg(0), t.byte(0x09), t.uint(9), t.uint(1ULL << 60);
      },
      [](TraceEncoder& t) {
        t.enter(kQuery), t.arg(0), t.byte(0x0c), t.uint(9), t.bytes("S"), t.uint(1ULL << 60);
      },
  };
  for (std::size_t i = 0; i < hostile.size(); ++i) {
    const DumpResult r = after_two_calls(hostile[i]);
    EXPECT_EQ(r.text, kTwoCalls) << i;
    EXPECT_NE(r.error.find("is larger than the"), std::string::npos) << i << ": " << r.error;
  }
}

TEST(ApitraceDamage, ArgumentNumberOutsideTheSignature) {
  const DumpResult r = after_two_calls([](TraceEncoder& t) { t.enter(kQuery), t.arg(5); });
  EXPECT_EQ(r.text, kTwoCalls);
  EXPECT_NE(r.error.find("argument number 5 of query, which has 1 argument(s)"), std::string::npos)
      << r.error;
}

TEST(ApitraceDamage, DeepNestingIsRefused) {
  const DumpResult r = after_two_calls([](TraceEncoder& t) {
    t.enter(kQuery), t.arg(0);
    for (int i = 0; i < 100000; ++i) {
      t.array(1);
    }
  });
  EXPECT_EQ(r.text, kTwoCalls);
  EXPECT_NE(r.error.find("values nested more than 64 deep"), std::string::npos) << r.error;
}

TEST(ApitraceDamage, TooManyCallsInFlight) {
  TraceEncoder t(6);
  for (int i = 0; i <= 65536; ++i) {
    t.enter(kQuery), t.end();
  }
  const DumpResult r = dump_bytes(snappy_container(t.stream()));
  EXPECT_EQ(r.calls, 0U);
  EXPECT_NE(r.error.find("more than 65536 calls entered and not left"), std::string::npos)
      << r.error;
}

TEST(ApitraceDamage, SignatureTablesAndEventsAreBounded) {
  // Each new function signature grows the tables; past the limit the trace is refused, after
  // the calls that came before.
  TraceEncoder t(6);
  for (std::uint64_t id = 0; id < 1000; ++id) {
    const auto n = t.enter(FunctionDef{id, "function_" + std::to_string(id), {"a", "b", "c"}});
    t.end(), t.leave(n), t.end();
  }
  DecoderLimits limits;
  limits.max_signature_bytes = 20000;
  DumpResult r = dump_bytes(snappy_container(t.stream()), {}, limits);
  EXPECT_GT(r.calls, 10U);
  EXPECT_LT(r.calls, 1000U);
  EXPECT_EQ(r.text.substr(0, 34), "0 function_0()\n1 function_1()\n2 fu");
  EXPECT_NE(r.error.find("the signatures defined so far take more than 20000 bytes (rtrace's "
                         "limit; corrupt trace?)"),
            std::string::npos)
      << r.error;
  // One event bigger than the event limit.
  TraceEncoder big(6);
  big.enter(kQuery), big.arg(0), big.blob(std::string(5000, 'b')), big.end();
  limits = DecoderLimits{};
  limits.max_event = 4096;
  r = dump_bytes(snappy_container(big.stream()), {}, limits);
  EXPECT_NE(r.error.find("an event longer than 4096 bytes (rtrace's limit"), std::string::npos)
      << r.error;
}

TEST(ApitraceDamage, LeaveOfAnUnknownCallIsSkippedWithAWarning) {
  const DumpResult r =
      after_two_calls([](TraceEncoder& t) { t.leave(42), t.arg(0), t.uint_value(1), t.end(); });
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.text, kTwoCalls + "2 query(what = 8)\n");
  EXPECT_NE(r.warnings.find("leave of call 42, which was not entered (ignored)"),
            std::string::npos);
}

TEST(ApitraceDamage, BadSnappyContainer) {
  TraceEncoder t(6);
  const auto n = t.enter(kQuery);
  t.arg(0), t.uint_value(1), t.end(), t.leave(n), t.end();
  const std::string good = snappy_container(t.stream());
  // A chunk length no chunk can have.
  DumpResult r = dump_bytes(good + std::string("\xff\xff\xff\x7f", 4) + "junk");
  EXPECT_EQ(r.text, "0 query(what = 1)\n");
  EXPECT_EQ(r.error, "t.trace:" + std::to_string(good.size()) +
                         ": Snappy chunk length 2147483647 is larger than any chunk can be "
                         "(corrupt container)");
  // A chunk that does not decompress.
  r = dump_bytes(good + std::string("\x04\x00\x00\x00\x10\xff\xff\xff", 8));
  EXPECT_EQ(r.text, "0 query(what = 1)\n");
  EXPECT_NE(r.error.find("corrupt Snappy chunk"), std::string::npos) << r.error;
  // Not a trace at all (taken for Brotli, which it is not either).
  r = dump_bytes("hello, world\n");
  EXPECT_NE(r.error.find("not an apitrace trace"), std::string::npos) << r.error;
  // Stray bytes after the last chunk.
  r = dump_bytes(good + "ab");
  EXPECT_EQ(r.text, "0 query(what = 1)\n");
  EXPECT_NE(r.warnings.find("2 stray byte(s) after the last chunk ignored"), std::string::npos);
}

TEST(ApitraceDamage, TruncatedLastChunkIsSalvaged) {
  Sample s = sample();
  const std::string file = snappy_container(s.stream);  // one chunk
  const DumpResult r = dump_bytes(file.substr(0, file.size() - 3));
  EXPECT_NE(r.warnings.find("the file ends inside its last Snappy chunk"), std::string::npos)
      << r.warnings;
  // Snappy stores the tail as literals here: all but the last bytes come back.
  std::string expected = kHeaderLine;
  for (std::size_t i = 0; i + 1 < s.lines.size(); ++i) {
    expected += s.lines[i];
  }
  EXPECT_EQ(r.text.substr(0, expected.size()), expected);
}

TEST(ApitraceDamage, CorruptCompressedContainers) {
  TraceEncoder t(6);
  const auto n = t.enter(kQuery);
  t.arg(0), t.uint_value(1), t.end(), t.leave(n), t.end();
  // A cut gzip or zstd stream is a warning at its compressed offset, as a cut plain file is
  // (src/io); what decoded before the cut is kept.
  for (std::string file : {gzip_container(t.stream()), zstd_container(t.stream())}) {
    file.resize(file.size() - 6);
    const DumpResult r = dump_bytes(file);
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.warnings.rfind("t.trace:", 0), 0U) << r.warnings;
  }
  // Corrupt deflate data is an error naming the file.
  std::string gzip = gzip_container(t.stream());
  gzip[gzip.size() / 2] = static_cast<char>(~gzip[gzip.size() / 2]);
  const DumpResult corrupt = dump_bytes(gzip);
  EXPECT_EQ(corrupt.error.rfind("t.trace:", 0), 0U) << corrupt.error << corrupt.warnings;
  std::string brotli = brotli_container(t.stream());
  brotli.resize(brotli.size() - 1);
  const DumpResult r = dump_bytes(brotli);
  EXPECT_TRUE(!r.error.empty() || !r.warnings.empty());
}

}  // namespace
}  // namespace rtrace::apitrace::test
