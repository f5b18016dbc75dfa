// The compact recording format: what it keeps of real sp-rtrace traces (everything the binary
// protocol holds), how it deduplicates, and what damaged input gives: exact messages, and every
// record before the damage.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <zstd.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compact_test_support.h"
#include "formats/compact/compact_reader.h"
#include "io/compressed_cut.h"
#include "support/sweep.h"

namespace rtrace::test {
namespace {

using compact::Tag;
using B = CompactBuilder;

// A CALL's flags (docs/format.md), written out as the format gives them.
constexpr std::uint8_t kAlloc = 0x02;
constexpr std::uint8_t kFree = 0x01;
constexpr std::uint8_t kArguments = 0x08;
constexpr std::uint8_t kReference = 0x10;
constexpr std::uint8_t kTimestamp = 0x20;
constexpr std::uint8_t kTypeContext = 0x40;

std::vector<std::filesystem::path> binary_fixtures() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(fixture("sp-rtrace"))) {
    if (!entry.is_regular_file()) {
      continue;
    }
    const std::string head = read_file(entry.path()).substr(0, kDetectBytes);
    const TraceFormatInfo* format =
        detect_format({reinterpret_cast<const std::uint8_t*>(head.data()), head.size()});
    if (format != nullptr && format->name == "binary") {
      files.push_back(entry.path());
    }
  }
  std::ranges::sort(files);
  return files;
}

// Binary -> compact -> binary is the binary writer's own output, byte for byte: the compact
// format holds exactly what the sp-rtrace protocol holds.
TEST(CompactFormat, EveryBinaryFixtureSurvivesCompact) {
  RTRACE_NEEDS_FIXTURES();
  const auto files = binary_fixtures();
  ASSERT_GE(files.size(), 4U);
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    const std::string original = read_file(file);
    const std::string compact = convert_to(original, "compact");
    ASSERT_TRUE(compact.starts_with(std::string(compact::kMagic, compact::kMagicSize)));
    EXPECT_EQ(convert_to(compact, "binary"), convert_to(original, "binary"));
    const auto read = read_any(compact);
    EXPECT_EQ(read->warnings, "");
    EXPECT_EQ(read->error, "");
    EXPECT_EQ(read->sink.finish_count(), 1);
  }
}

// compact -> binary -> text is compact -> text.
TEST(CompactFormat, BinaryOfACompactTraceReadsAsTheCompactTrace) {
  RTRACE_NEEDS_FIXTURES();
  for (const auto& file : binary_fixtures()) {
    SCOPED_TRACE(file.string());
    const std::string compact = convert_to(read_file(file), "compact");
    EXPECT_EQ(convert_to(convert_to(compact, "binary"), "text"), convert_to(compact, "text"));
  }
}

// The memory module's fixture trace, converted to the compact format.
std::string memory_compact() {
  return convert_to(read_file(fixture("sp-rtrace/memory/memory.raw")), "compact");
}

// The varint at `at`; `at` moves past it.
std::uint64_t next_varint(const std::string& bytes, std::size_t& at) {
  std::uint64_t value = 0;
  for (unsigned shift = 0;; shift += 7) {
    const auto b = static_cast<std::uint8_t>(bytes[at++]);
    value |= std::uint64_t{b & 0x7Fu} << shift;
    if ((b & 0x80) == 0) {
      return value;
    }
  }
}

// Where version 3's bare CALL starting at `pos` ends (a call without arguments: the tracer's
// memory calls).
std::size_t bare_call_end(const std::string& bytes, std::size_t pos) {
  const auto flags = static_cast<std::uint8_t>(bytes[pos]);
  std::size_t fields = 4;
  fields += (flags & compact::kCallHasTypeAndContext) != 0 ? 2 : 0;
  fields += (flags & compact::kCallHasTimestamp) != 0 ? 1 : 0;
  std::size_t at = pos + 1;
  for (std::size_t i = 0; i < fields; ++i) {
    next_varint(bytes, at);
  }
  EXPECT_EQ(flags & compact::kCallHasArguments, 0);
  return at;
}

// Calls `visit(tag, payload)` for each record of an uncompressed compact file (a well-formed one:
// what our writer wrote). A bare CALL is visited as Tag::Call with its flags (without
// kBareCall) as the payload's first byte, as a framed one.
template <class Visit>
void for_each_record(const std::string& compact, Visit visit) {
  const bool bare_calls = compact[compact::kMagicSize] >= compact::kFirstBareMajor;
  for (std::size_t pos = compact::kFileHeaderSize; pos < compact.size();) {
    const auto first = static_cast<std::uint8_t>(compact[pos]);
    if (compact[compact::kMagicSize] >= compact::kFirstThreadMajor &&
        (first & compact::kBareCall) != 0 &&
        (first & compact::kCallKindMask) == compact::kThreadSwitchKind) {  // a bare switch
      std::size_t end = pos + 1;
      if (((first >> compact::kThreadSwitchShift) & 0x0F) == compact::kThreadSwitchVarint) {
        next_varint(compact, end);
      }
      visit(Tag::Thread, compact.substr(pos, end - pos));
      pos = end;
      continue;
    }
    if (bare_calls && (first & compact::kBareCall) != 0) {
      const std::size_t end = bare_call_end(compact, pos);
      visit(Tag::Call, std::string(1, static_cast<char>(first & ~compact::kBareCall)) +
                           compact.substr(pos + 1, end - pos - 1));
      pos = end;
      continue;
    }
    std::size_t at = pos + 1;
    const std::uint64_t length = next_varint(compact, at);
    visit(static_cast<Tag>(first), std::string_view(compact).substr(at, length));
    pos = at + length;
  }
}

// memory.raw: each distinct backtrace is written once, and the trace is several times smaller.
TEST(CompactFormat, BacktracesAreWrittenOnce) {
  RTRACE_NEEDS_FIXTURES();
  const std::string original = read_file(fixture("sp-rtrace/memory/memory.raw"));
  const std::string compact = convert_to(original, "compact");
  const auto read = read_any(original);
  std::vector<std::string> distinct;
  for (const std::string& line : read->sink.lines()) {
    if (const auto at = line.find(" bt=["); line.starts_with("call ") && at != std::string::npos) {
      distinct.push_back(line.substr(at));
    }
  }
  std::ranges::sort(distinct);
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  // Count STACK records by walking the records.
  std::size_t stacks = 0;
  std::size_t calls = 0;
  for_each_record(compact, [&](Tag tag, std::string_view /*payload*/) {
    stacks += tag == Tag::Stack ? 1 : 0;
    calls += tag == Tag::Call ? 1 : 0;
  });
  EXPECT_EQ(calls, read->sink.call_count());
  EXPECT_EQ(stacks, distinct.size());
  EXPECT_LT(stacks, calls);
  EXPECT_LT(compact.size() * 3, original.size());
}

// Cut after every byte: never an error, the records a prefix of the intact trace's, and a
// warning that names the cut.
TEST(CompactFormat, TruncationAtEveryOffset) {
  RTRACE_NEEDS_FIXTURES();
  const std::string compact = memory_compact();
  const auto intact = read_any(compact);
  ASSERT_EQ(intact->warnings, "");
  const auto& whole = intact->sink.lines();
  for (const std::size_t length : sweep(0, compact.size())) {
    const auto cut = read_any(compact.substr(0, length), 97);
    if (length == 0) {
      EXPECT_EQ(cut->error, "trace:0: empty input");
      continue;
    }
    if (length < compact::kMagicSize) {
      continue;  // not recognisable as a compact trace any more
    }
    ASSERT_EQ(cut->error, "") << "length " << length;
    EXPECT_EQ(cut->sink.finish_count(), 1);
    const auto& part = cut->sink.lines();
    ASSERT_LE(part.size(), whole.size());
    EXPECT_TRUE(std::equal(part.begin(), part.end(), whole.begin())) << "length " << length;
    EXPECT_TRUE(cut->warnings.find("truncated") != std::string::npos ||
                cut->warnings.find("incomplete trace") != std::string::npos)
        << "length " << length << ": " << cut->warnings;
  }
}

TEST(CompactFormat, ExactMessages) {
  const std::string call_payload = std::string(1, '\x02') + B::varint(1) + B::varint(1) +
                                   B::varint(0) + B::varint(2) + B::varint(0x20) + B::varint(16) +
                                   B::varint(0);
  B good;
  good.trace().record(Tag::Function, B::str("malloc")).record(Tag::Call, call_payload);
  const std::size_t after_call = good.size();

  {  // A trace that simply stops: incomplete.
    const auto read = read_any(good.bytes());
    EXPECT_EQ(read->warnings, "trace:" + std::to_string(after_call) +
                                  ": warning: incomplete trace: no end-of-trace record (the "
                                  "process was killed or is still running)\n");
    EXPECT_EQ(read->sink.call_count(), 1U);
  }
  {  // Complete.
    B complete = good;
    complete.end();
    const auto read = read_any(complete.bytes());
    EXPECT_EQ(read->warnings, "");
    const auto& lines = read->sink.lines();
    ASSERT_GE(lines.size(), 2U);
    EXPECT_EQ(lines[lines.size() - 2], "call #1 malloc kind=2 type=1 ctx=0x0 ts=1 size=16 id=0x10");
    EXPECT_EQ(lines.back(), "end pid=0 reason=exit signal=0 time=0.000000 peak=4096 rss=4096");
  }
  {  // Cut inside a record.
    B cut = good;
    cut.record(Tag::Call, call_payload);
    const auto read = read_any(cut.bytes().substr(0, cut.size() - 3));
    EXPECT_EQ(read->warnings, "trace:" + std::to_string(after_call) +
                                  ": warning: truncated record (7 of 10 bytes); ignored\n");
    EXPECT_EQ(read->sink.call_count(), 1U);
  }
  {  // A call naming a function never defined: an error, after the calls before it.
    B bad = good;
    bad.record(Tag::Call, std::string(1, '\x02') + B::varint(7) + call_payload.substr(2));
    const auto read = read_any(bad.bytes());
    EXPECT_EQ(read->error, "trace:" + std::to_string(after_call) + ": undefined function id 7");
    EXPECT_EQ(read->sink.call_count(), 1U);
    EXPECT_EQ(read->sink.finish_count(), 1);
  }
  {  // A stack id never defined.
    B bad = good;
    bad.record(Tag::Call, call_payload.substr(0, call_payload.size() - 1) + B::varint(3));
    EXPECT_EQ(read_any(bad.bytes())->error,
              "trace:" + std::to_string(after_call) + ": undefined stack id 3");
  }
  {  // A hostile frame count: refused before anything is allocated for it.
    B bad = good;
    bad.record(Tag::Stack, B::varint(1'000'000'000) + B::varint(4));
    EXPECT_EQ(read_any(bad.bytes())->error,
              "trace:" + std::to_string(after_call) +
                  ": frame count 1000000000 larger than the record holds");
  }
  {  // A hostile record length.
    const std::string bytes = good.bytes() + '\x09' + B::varint(compact::kMaxPayload + 1);
    EXPECT_EQ(read_any(bytes)->error,
              "trace:" + std::to_string(after_call) + ": impossible record length 16777217");
  }
  {  // A field that does not fit in its record.
    B bad = good;
    bad.record(Tag::Process, B::varint(42));
    EXPECT_EQ(read_any(bad.bytes())->error,
              "trace:" + std::to_string(after_call) + ": record too short for the start time");
  }
  {  // A later version's record: skipped with one warning, the rest read.
    B later = good;
    later.raw_record(0x7F, "xyz").raw_record(0x7F, "").record(Tag::Call, call_payload).end();
    const auto read = read_any(later.bytes());
    EXPECT_EQ(read->warnings, "trace:" + std::to_string(after_call) +
                                  ": warning: unknown record tag 0x7f skipped\n");
    EXPECT_EQ(read->sink.call_count(), 2U);
  }
  {  // Another major version.
    std::string other = good.bytes();
    other[compact::kMagicSize] = compact::kMajor + 1;
    EXPECT_EQ(read_any(other)->error,
              fmt::format("trace:8: unsupported compact format version {}.0", compact::kMajor + 1));
  }
  {  // Version 2's call flags in a version 1 trace.
    B bad = good;
    bad.record(Tag::Call, std::string(1, '\x12') + call_payload.substr(1));
    EXPECT_EQ(read_any(bad.bytes())->error,
              "trace:" + std::to_string(after_call) + ": unknown call flags 0x12");
  }
  {  // No TRACE record first.
    B headless;
    headless.record(Tag::Function, B::str("malloc"));
    EXPECT_EQ(read_any(headless.bytes())->error,
              "trace:10: the first record is not a TRACE record");
  }
}

// RESET forgets one table: ids count from 1 again, the other table stays.
TEST(CompactFormat, ResetStartsATableAgain) {
  B trace;
  trace.trace()
      .record(Tag::Function, B::str("malloc"))
      .record(Tag::Stack, B::varint(1) + B::varint(compact::zigzag(0x1000)))
      .record(Tag::Call, std::string(1, '\x02') + B::varint(1) + B::varint(1) + B::varint(0) +
                             B::varint(0) + B::varint(0) + B::varint(1) + B::varint(1))
      .record(Tag::Reset, B::varint(2))
      .record(Tag::Stack, B::varint(1) + B::varint(compact::zigzag(0x10)))
      .record(Tag::Call, std::string(1, '\x01') + B::varint(1) + B::varint(1) + B::varint(0) +
                             B::varint(0) + B::varint(0) + B::varint(0) + B::varint(1))
      .end();
  const auto read = read_any(trace.bytes());
  ASSERT_EQ(read->error, "");
  const auto& lines = read->sink.lines();
  ASSERT_EQ(read->sink.call_count(), 2U);
  ASSERT_GE(lines.size(), 3U);
  EXPECT_EQ(lines[lines.size() - 3],
            "call #1 malloc kind=2 type=1 ctx=0x0 ts=0 size=1 id=0x0 bt=[0x1000]");
  EXPECT_EQ(lines[lines.size() - 2],
            "call #2 malloc kind=1 type=1 ctx=0x0 ts=0 size=0 id=0x0 bt=[0x1010]");
  EXPECT_EQ(lines.back(), "end pid=0 reason=exit signal=0 time=0.000000 peak=4096 rss=4096");
  B bad;
  bad.trace();
  const std::size_t at = bad.size();
  bad.record(Tag::Reset, B::varint(3));
  EXPECT_EQ(read_any(bad.bytes())->error,
            "trace:" + std::to_string(at) + ": unknown table 3 to reset");
}

// The call lines among the lines a reading gave.
std::vector<std::string> call_lines(const std::vector<std::string>& lines) {
  std::vector<std::string> calls;
  for (const std::string& line : lines) {
    if (line.starts_with("call ")) {
      calls.push_back(line);
    }
  }
  return calls;
}

// The calls of Version2CallsAndReferences and Version3BareCalls as read: malloc(16) = 0x1000 at
// 5 ms, malloc(32) = 0x2000, free(0x1000), malloc(16) = 0x1000 at 6 ms, free(0x2000), then
// `last`.
std::vector<std::string> references_read(const std::string& last) {
  return {
      "call #1 malloc kind=2 type=1 ctx=0x0 ts=5 size=16 id=0x1000",
      "call #2 malloc kind=2 type=1 ctx=0x0 ts=5 size=32 id=0x2000",
      "call #3 free kind=1 type=1 ctx=0x0 ts=5 size=0 id=0x1000",
      "call #4 malloc kind=2 type=1 ctx=0x0 ts=6 size=16 id=0x1000",
      "call #5 free kind=1 type=1 ctx=0x0 ts=6 size=0 id=0x2000",
      last,
  };
}

// Version 2: type, context and timestamp only when they change, resources by reference (a
// release names an allocation, an allocation a release, counting back), decoded exactly.
TEST(CompactFormat, Version2CallsAndReferences) {
  constexpr char kAlloc = 0x02;
  constexpr char kFree = 0x01;
  constexpr char kTypeContext = 0x40;
  constexpr char kTimestamp = 0x20;
  constexpr char kReference = 0x10;
  B trace(2);
  trace.trace().record(Tag::Function, B::str("malloc")).record(Tag::Function, B::str("free"));
  // malloc(16) = 0x1000 at 5 ms, malloc(32) = 0x2000, free(0x1000) by reference 2,
  // malloc(16) = 0x1000 by reference 1 (the release just before) at 6 ms, free(0x2000) by
  // value, free(0x1000) by reference 1.
  trace
      .record(Tag::Call, std::string(1, kAlloc | kTypeContext | kTimestamp) + B::varint(1) +
                             B::varint(1) + B::varint(0) + B::varint(compact::zigzag(5)) +
                             B::varint(compact::zigzag(0x1000)) + B::varint(16) + B::varint(0))
      .record(Tag::Call, std::string(1, kAlloc) + B::varint(1) +
                             B::varint(compact::zigzag(0x1000)) + B::varint(32) + B::varint(0))
      .record(Tag::Call, std::string(1, kFree | kReference) + B::varint(2) + B::varint(2) +
                             B::varint(0) + B::varint(0))
      .record(Tag::Call, std::string(1, kAlloc | kReference | kTimestamp) + B::varint(1) +
                             B::varint(compact::zigzag(1)) + B::varint(1) + B::varint(16) +
                             B::varint(0))
      .record(Tag::Call, std::string(1, kFree) + B::varint(2) + B::varint(compact::zigzag(0x1000)) +
                             B::varint(0) + B::varint(0))
      .record(Tag::Call, std::string(1, kFree | kReference) + B::varint(2) + B::varint(1) +
                             B::varint(0) + B::varint(0))
      .end();
  const std::size_t note_at = trace.size();
  trace.record(Tag::Note, B::str("written uncompressed"));  // may follow END
  const auto read = read_any(trace.bytes());
  ASSERT_EQ(read->error, "");
  EXPECT_EQ(read->warnings, "trace:" + std::to_string(note_at) +
                                ": warning: writer's note: written uncompressed\n");
  EXPECT_EQ(call_lines(read->sink.lines()),
            references_read("call #6 free kind=1 type=1 ctx=0x0 ts=6 size=0 id=0x1000"));

  B bad(2);
  bad.trace().record(Tag::Function, B::str("free"));
  const std::size_t at = bad.size();
  bad.record(Tag::Call, std::string(1, kFree | kReference | kTypeContext) + B::varint(1) +
                            B::varint(1) + B::varint(0) + B::varint(1) + B::varint(0) +
                            B::varint(0));
  EXPECT_EQ(
      read_any(bad.bytes())->error,
      "trace:" + std::to_string(at) + ": resource reference 1 to no earlier allocation (of 0)");
  B other(2);
  other.trace().record(Tag::Function, B::str("open"));
  const std::size_t other_at = other.size();
  other.record(Tag::Call, std::string(1, 0x00 | kReference) + B::varint(1) + B::varint(1) +
                              B::varint(0) + B::varint(0));
  EXPECT_EQ(read_any(other.bytes())->error,
            "trace:" + std::to_string(other_at) + ": a resource reference in a call of kind 0");
}

// Version 3: the same calls as Version2CallsAndReferences, written bare (the flags with
// kBareCall as the first byte, no tag, no length), decode to the same calls; a framed CALL is
// still read in version 3; in version 2 such a byte is an unknown tag.
// `bytes` cut at every byte inside the record from `record` to `end`: the `calls` calls before it,
// and a warning at the record's offset.
void expect_cut_inside(const std::string& bytes, std::size_t record, std::size_t end,
                       std::size_t calls) {
  for (const std::size_t cut : sweep(record + 1, end)) {
    const auto part = read_any(bytes.substr(0, cut));
    EXPECT_EQ(part->error, "") << cut;
    EXPECT_EQ(part->sink.call_count(), calls) << cut;
    EXPECT_TRUE(part->warnings.starts_with("trace:" + std::to_string(record) +
                                           ": warning: truncated record ("))
        << cut << ": " << part->warnings;
  }
}

TEST(CompactFormat, Version3BareCalls) {
  B trace(3);
  trace.trace().record(Tag::Function, B::str("malloc")).record(Tag::Function, B::str("free"));
  trace
      .bare_call(kAlloc | kTypeContext | kTimestamp,
                 B::varint(1) + B::varint(1) + B::varint(0) + B::varint(compact::zigzag(5)) +
                     B::varint(compact::zigzag(0x1000)) + B::varint(16) + B::varint(0))
      .bare_call(kAlloc,
                 B::varint(1) + B::varint(compact::zigzag(0x1000)) + B::varint(32) + B::varint(0))
      .bare_call(kFree | kReference, B::varint(2) + B::varint(2) + B::varint(0) + B::varint(0))
      .record(Tag::Call, std::string(1, static_cast<char>(kAlloc | kReference | kTimestamp)) +
                             B::varint(1) + B::varint(compact::zigzag(1)) + B::varint(1) +
                             B::varint(16) + B::varint(0))
      .bare_call(kFree,
                 B::varint(2) + B::varint(compact::zigzag(0x1000)) + B::varint(0) + B::varint(0))
      .bare_call(kFree | kReference | kArguments, B::varint(2) + B::varint(1) + B::varint(0) +
                                                      B::varint(0) + B::varint(1) + B::str("n") +
                                                      B::str("7"));
  const std::size_t before_end = trace.size();
  trace.end();
  const auto read = read_any(trace.bytes());
  ASSERT_EQ(read->error, "");
  EXPECT_EQ(read->warnings, "");
  EXPECT_EQ(call_lines(read->sink.lines()),
            references_read("call #6 free kind=1 type=1 ctx=0x0 ts=6 size=0 id=0x1000 $n=7"));

  // Cut inside the last call, at every byte: the calls before it, and a warning at its offset.
  const std::size_t last_call = before_end - 10;
  ASSERT_EQ(static_cast<std::uint8_t>(trace.bytes()[last_call]),
            compact::kBareCall | kFree | kReference | kArguments);
  expect_cut_inside(trace.bytes(), last_call, before_end, 5);

  B damaged(3);
  damaged.trace().record(Tag::Function, B::str("malloc"));
  const std::size_t at = damaged.size();
  damaged.bare_call(0x07, B::varint(1) + B::varint(0) + B::varint(0) + B::varint(0));
  EXPECT_EQ(read_any(damaged.bytes())->error,
            "trace:" + std::to_string(at) + ": unknown call flags 0x07");
  B hostile(3);
  hostile.trace().record(Tag::Function, B::str("malloc"));
  hostile.bare_call(kAlloc | kArguments, B::varint(1) + B::varint(0) + B::varint(0) + B::varint(0) +
                                             B::varint(std::uint64_t{1} << 40));
  EXPECT_EQ(read_any(hostile.bytes())->error,
            "trace:" + std::to_string(at) + ": impossible argument count 1099511627776");

  // Version 2 has no bare calls: the byte is a tag it does not know, skipped with its length.
  B older(2);
  older.trace().record(Tag::Function, B::str("malloc"));
  const std::size_t skipped = older.size();
  older.raw_record(compact::kBareCall | kAlloc, B::varint(1)).end();
  const auto old_read = read_any(older.bytes());
  EXPECT_EQ(old_read->error, "");
  EXPECT_EQ(old_read->warnings,
            "trace:" + std::to_string(skipped) + ": warning: unknown record tag 0x82 skipped\n");
  EXPECT_EQ(old_read->sink.call_count(), 0U);
}

// The reader decodes a bare call without arguments straight away when the bytes at hand surely
// hold it, and sizes it first otherwise (near the end of what it has read). Both give the same
// calls wherever the input's pieces end; damage in either stops at the call's offset.
TEST(CompactFormat, BareCallsReadTheSameWhereverTheInputBreaks) {
  B trace(3);
  trace.trace().record(Tag::Function, B::str("malloc")).record(Tag::Function, B::str("free"));
  std::vector<std::string> expected;
  for (std::uint64_t i = 0; i < 40; ++i) {
    // Long fields too: a large timestamp step and resource id, sizes of several bytes.
    const std::uint64_t id = 0x7f0000001000 + (i << 32);
    trace.bare_call(kAlloc | kTimestamp | (i == 0 ? kTypeContext : 0),
                    B::varint(1) + (i == 0 ? B::varint(1) + B::varint(0) : std::string()) +
                        B::varint(compact::zigzag(1'000'000'007)) +
                        B::varint(compact::zigzag(i == 0 ? static_cast<std::int64_t>(id)
                                                         : std::int64_t{1} << 32)) +
                        B::varint(i << 20) + B::varint(0));
    trace.bare_call(kFree | kReference, B::varint(2) + B::varint(1) + B::varint(0) + B::varint(0));
    expected.push_back(fmt::format("call #{} malloc kind=2 type=1 ctx=0x0 ts={} size={} id={:#x}",
                                   2 * i + 1, (i + 1) * 1'000'000'007, i << 20, id));
    expected.push_back(fmt::format("call #{} free kind=1 type=1 ctx=0x0 ts={} size=0 id={:#x}",
                                   2 * i + 2, (i + 1) * 1'000'000'007, id));
  }
  trace.end();
  for (const std::size_t piece :
       {std::size_t{1}, std::size_t{7}, std::size_t{64}, std::size_t{97}, std::size_t{1} << 20}) {
    const auto read = read_any(trace.bytes(), piece);
    ASSERT_EQ(read->error, "") << piece;
    EXPECT_EQ(read->warnings, "") << piece;
    EXPECT_EQ(call_lines(read->sink.lines()), expected) << piece;
  }

  // An endless number in the first of many calls (decoded straight), and in the last (sized).
  B damaged(3);
  damaged.trace().record(Tag::Function, B::str("malloc"));
  const std::size_t first = damaged.size();
  const std::string endless(11, '\xff');
  damaged.bare_call(kAlloc, B::varint(1) + endless + B::varint(0) + B::varint(0));
  for (int i = 0; i < 20; ++i) {
    damaged.bare_call(kAlloc, B::varint(1) + B::varint(0) + B::varint(16) + B::varint(0));
  }
  const auto read = read_any(damaged.bytes());
  EXPECT_EQ(read->error,
            "trace:" + std::to_string(first) + ": malformed number in the resource id");
  EXPECT_EQ(read->sink.call_count(), 0U);
  B late(3);
  late.trace().record(Tag::Function, B::str("malloc"));
  late.bare_call(kAlloc, B::varint(1) + B::varint(0) + B::varint(16) + B::varint(0));
  const std::size_t last = late.size();
  late.bare_call(kAlloc, B::varint(1) + endless + B::varint(0) + B::varint(0));
  const auto late_read = read_any(late.bytes());
  EXPECT_EQ(late_read->error, "trace:" + std::to_string(last) + ": malformed number in a call");
  EXPECT_EQ(late_read->sink.call_count(), 1U);
}

// A memory map recorded after a call prints with the others before the calls when `rtrace
// process` reads a file, as for the binary protocol
// (BinaryToText.LateMapsPrintBeforeTheCallsFromAFile); a first walk over the records' lengths tells
// whether the trace has any, and a trace whose calls break off before the late map does not print
// it.
TEST(CompactFormat, LateMapsPrintBeforeTheCallsFromAFile) {
  const auto mapping = [](std::uint64_t from, std::string_view path) {
    return B::varint(from) + B::varint(0x1000) + B::str(path);
  };
  const std::string alloc = B::varint(1) + B::varint(1) + B::varint(0) + B::varint(0) +
                            B::varint(compact::zigzag(0x5000)) + B::varint(8) + B::varint(0);
  const auto traced = [&](const std::string& first_call, bool late) {
    B trace(4);
    trace.trace().record(Tag::Function, B::str("malloc"));
    trace.record(Tag::Mapping, mapping(0x1000, "/bin/prog"));
    trace.bare_call(kAlloc | kTypeContext | kTimestamp, first_call);
    if (late) {
      trace.record(Tag::Mapping, mapping(0x7000, "/lib/late.so"));
    }
    return trace.end().bytes();
  };
  const auto has_late_maps = [](const std::string& bytes) {
    InputStream input(std::make_unique<MemorySource>(bytes), "trace");
    return compact_has_late_maps(input);
  };
  const ScratchDir dir;
  const std::string rtrace = "'" + (build_dir() / "bin" / "rtrace").string() + "' process";
  const auto print = [&](const std::string& bytes) {
    write_file(dir / "trace", bytes);
    return run_command(rtrace + " -i '" + (dir / "trace").string() + "'");
  };

  const std::string late = traced(alloc, true);
  EXPECT_TRUE(has_late_maps(late));
  const auto printed = print(late);
  EXPECT_EQ(printed.err, "");
  const std::size_t late_map = printed.out.find(": /lib/late.so => 0x7000-0x8000\n");
  const std::size_t call = printed.out.find("1. malloc(8) = 0x5000\n");
  ASSERT_NE(late_map, std::string::npos) << printed.out;
  ASSERT_NE(call, std::string::npos) << printed.out;
  EXPECT_LT(printed.out.find(": /bin/prog => 0x1000-0x2000\n"), late_map);
  EXPECT_LT(late_map, call);

  EXPECT_FALSE(has_late_maps(traced(alloc, false)));
  EXPECT_EQ(
      print(traced(alloc, false)).out,
      printed.out.substr(0, late_map) + printed.out.substr(printed.out.find('\n', late_map) + 1));

  // A call naming a stack never defined: the walk measures it and finds the late map; the
  // full pass stops at the call, before the map, and nothing of it prints.
  const std::string undefined_stack = alloc.substr(0, alloc.size() - 1) + B::varint(99);
  const std::string damaged = traced(undefined_stack, true);
  EXPECT_TRUE(has_late_maps(damaged));
  const auto broken = print(damaged);
  EXPECT_EQ(broken.out.find("late.so"), std::string::npos) << broken.out;
  EXPECT_NE(broken.err.find("undefined stack id"), std::string::npos) << broken.err;
}

// What rtrace's writer makes of a real trace: version 6 (bare calls; no THREAD record, the
// sp-rtrace protocol has no thread ids), references for the
// releases, every call read back as it was (EveryBinaryFixtureSurvivesCompact checks the bytes),
// and cut after every byte still a prefix (TruncationAtEveryOffset reads version 3 too).
TEST(CompactFormat, WriterWritesVersion6WithReferences) {
  RTRACE_NEEDS_FIXTURES();
  const std::string compact = memory_compact();
  ASSERT_GT(compact.size(), compact::kFileHeaderSize);
  EXPECT_EQ(compact[compact::kMagicSize], 6);
  std::size_t framed_calls = 0;
  for (std::size_t pos = compact::kFileHeaderSize; pos < compact.size();) {
    const auto first = static_cast<std::uint8_t>(compact[pos]);
    if ((first & compact::kBareCall) != 0) {
      EXPECT_NE(first & compact::kCallKindMask, compact::kThreadSwitchKind);  // one thread
      pos = bare_call_end(compact, pos);
      continue;
    }
    framed_calls += first == static_cast<std::uint8_t>(Tag::Call) ? 1 : 0;
    std::size_t at = pos + 1;
    const std::uint64_t length = next_varint(compact, at);  // moves `at` past the length
    pos = at + length;
  }
  EXPECT_EQ(framed_calls, 0U);
  std::size_t references = 0;
  std::size_t releases = 0;
  for_each_record(compact, [&](Tag tag, std::string_view payload) {
    if (tag != Tag::Call || payload.empty()) {
      return;
    }
    const auto flags = static_cast<std::uint8_t>(payload[0]);
    if ((flags & compact::kCallKindMask) == compact::kReleaseKind) {
      ++releases;
      references += (flags & compact::kCallResourceReference) != 0 ? 1 : 0;
    }
  });
  ASSERT_GT(releases, 10U);
  // free(NULL) and blocks allocated before tracing started have nothing to refer to.
  EXPECT_GT(references * 10, releases * 8) << references << " of " << releases;
}

// THREAD: `slot << 1 | 1` and the thread id, or `slot << 1` for the slot's thread so far.
std::string thread_record(std::uint64_t slot, std::optional<std::uint64_t> tid) {
  return B::varint(slot << 1 | (tid ? 1 : 0)) + (tid ? B::varint(*tid) : std::string());
}

// Version 4: THREAD records and bare switches (one byte, or with the slot as a varint); each
// THREAD slot has its own resource delta base and counts its own allocations and
// releases for references; the calls carry their slot's thread id. Two threads interleaved:
// thread 101 (slot 1) mallocs 0x1000 and 0x1100, thread 202 (slot 2) 0x9000, then each frees its
// own latest by reference 1 and its first by a delta from its own base.
B two_threads() {
  constexpr std::uint8_t kSwitch = compact::kThreadSwitchKind;
  B trace(4);
  trace.trace().record(Tag::Function, B::str("malloc")).record(Tag::Function, B::str("free"));
  const auto by_value = [](std::uint64_t function, std::int64_t delta, std::uint64_t size) {
    return B::varint(function) + B::varint(compact::zigzag(delta)) + B::varint(size) + B::varint(0);
  };
  trace.record(Tag::Thread, thread_record(1, 101))
      .bare_call(kAlloc | kTypeContext | kTimestamp,
                 B::varint(1) + B::varint(1) + B::varint(0) + B::varint(compact::zigzag(5)) +
                     B::varint(compact::zigzag(0x1000)) + B::varint(16) + B::varint(0))
      .record(Tag::Thread, thread_record(2, 202))
      .bare_call(kAlloc, by_value(1, 0x9000, 32))
      .record(Tag::Thread, thread_record(1, std::nullopt))
      .bare_call(kAlloc, by_value(1, 0x100, 48))
      .bare_call(kFree | kReference, B::varint(2) + B::varint(1) + B::varint(0) + B::varint(0))
      .bare_call(kSwitch | compact::kThreadSwitchVarint << 3, B::varint(2))  // to slot 2
      .bare_call(kFree | kReference, B::varint(2) + B::varint(1) + B::varint(0) + B::varint(0))
      .bare_call(kSwitch | 1 << 3, "")  // to slot 1
      .bare_call(kFree, by_value(2, -0x100, 0));
  return trace;
}

TEST(CompactFormat, Version4ThreadsCountTheirOwnReferencesAndDeltas) {
  B trace = two_threads();
  trace.end();
  const auto read = read_any(trace.bytes());
  ASSERT_EQ(read->error, "");
  EXPECT_EQ(read->warnings, "");
  const std::vector<std::string> expected = {
      "call #1 malloc kind=2 type=1 ctx=0x0 ts=5 size=16 id=0x1000 thread=101",
      "call #2 malloc kind=2 type=1 ctx=0x0 ts=5 size=32 id=0x9000 thread=202",
      "call #3 malloc kind=2 type=1 ctx=0x0 ts=5 size=48 id=0x1100 thread=101",
      "call #4 free kind=1 type=1 ctx=0x0 ts=5 size=0 id=0x1100 thread=101",
      "call #5 free kind=1 type=1 ctx=0x0 ts=5 size=0 id=0x9000 thread=202",
      "call #6 free kind=1 type=1 ctx=0x0 ts=5 size=0 id=0x1000 thread=101",
  };
  EXPECT_EQ(call_lines(read->sink.lines()), expected);

  // rtrace's writer keeps the threads: written again, the calls read the same, and each thread's
  // releases refer to its own allocations.
  const std::string rewritten = convert_to(trace.bytes(), "compact");
  EXPECT_EQ(rewritten[compact::kMagicSize], 6);
  const auto again = read_any(rewritten);
  ASSERT_EQ(again->error, "");
  EXPECT_EQ(call_lines(again->sink.lines()), expected);
  std::size_t threads = 0;
  std::size_t references = 0;
  for_each_record(rewritten, [&](Tag tag, std::string_view payload) {
    threads += tag == Tag::Thread ? 1 : 0;
    references += tag == Tag::Call && (payload[0] & compact::kCallResourceReference) != 0;
  });
  EXPECT_EQ(threads, 5U);
  EXPECT_EQ(references, 3U);
}

// THREAD of a hostile or damaged file: a slot out of range, a thread id missing or cut, a
// reference to another slot's allocation; in version 3 the tag is an unknown one, skipped.
TEST(CompactFormat, Version4ThreadRecordDamage) {
  const B good = two_threads();
  const std::size_t at = good.size();
  {
    B bad = good;
    bad.record(Tag::Thread, thread_record(compact::kThreadSlots, 7));
    EXPECT_EQ(read_any(bad.bytes())->error,
              "trace:" + std::to_string(at) + ": thread slot 1024 out of range (at most 1023)");
  }
  {
    B bad = good;
    bad.record(Tag::Thread, B::varint(std::uint64_t{1} << 62));
    EXPECT_EQ(read_any(bad.bytes())->error,
              "trace:" + std::to_string(at) +
                  ": thread slot 2305843009213693952 out of range (at most 1023)");
  }
  {  // A huge thread id is only a number; an unknown slot's thread is 0 (unknown).
    B odd = good;
    odd.record(Tag::Thread, thread_record(1023, UINT64_MAX))
        .bare_call(0x02,
                   B::varint(1) + B::varint(compact::zigzag(0x40)) + B::varint(8) + B::varint(0))
        .record(Tag::Thread, thread_record(7, std::nullopt))
        .bare_call(0x02,
                   B::varint(1) + B::varint(compact::zigzag(0x50)) + B::varint(8) + B::varint(0))
        .end();
    const auto read = read_any(odd.bytes());
    ASSERT_EQ(read->error, "");
    const auto calls = call_lines(read->sink.lines());
    ASSERT_EQ(calls.size(), 8U);
    EXPECT_EQ(
        calls[6],
        "call #7 malloc kind=2 type=1 ctx=0x0 ts=5 size=8 id=0x40 thread=18446744073709551615");
    EXPECT_EQ(calls[7], "call #8 malloc kind=2 type=1 ctx=0x0 ts=5 size=8 id=0x50");
  }
  {
    B bad = good;
    bad.raw_record(static_cast<std::uint8_t>(Tag::Thread), B::varint(3));
    EXPECT_EQ(read_any(bad.bytes())->error,
              "trace:" + std::to_string(at) + ": record too short for the thread id");
  }
  {  // Cut inside the record: the calls before it, and a warning at its offset.
    B cut = good;
    cut.record(Tag::Thread, thread_record(1, 1'000'000));
    expect_cut_inside(cut.bytes(), at, cut.size(), 6);
  }
  {  // A bare switch to a slot out of range, and one cut inside its varint.
    B bad = good;
    bad.bare_call(compact::kThreadSwitchKind | compact::kThreadSwitchVarint << 3, B::varint(5000));
    EXPECT_EQ(read_any(bad.bytes())->error,
              "trace:" + std::to_string(at) + ": thread slot 5000 out of range (at most 1023)");
    const auto cut = read_any(bad.bytes().substr(0, bad.size() - 1));
    EXPECT_EQ(cut->error, "");
    EXPECT_EQ(cut->sink.call_count(), 6U);
    EXPECT_EQ(cut->warnings, "trace:" + std::to_string(at) +
                                 ": warning: truncated record (2 of 3 bytes); ignored\n");
  }
  {  // Slot 3 has no allocation to refer to (slot 1's and 2's are theirs).
    B bad = good;
    bad.record(Tag::Thread, thread_record(3, 303));
    const std::size_t call_at = bad.size();
    bad.bare_call(0x01 | 0x10, B::varint(2) + B::varint(1) + B::varint(0) + B::varint(0));
    EXPECT_EQ(read_any(bad.bytes())->error,
              "trace:" + std::to_string(call_at) +
                  ": resource reference 1 to no earlier allocation (of 0)");
  }
  {  // Version 3 does not know the tag.
    B older(3);
    older.trace();
    const std::size_t skipped = older.size();
    older.record(Tag::Thread, thread_record(1, 5)).end();
    const auto read = read_any(older.bytes());
    EXPECT_EQ(read->error, "");
    EXPECT_EQ(read->warnings,
              "trace:" + std::to_string(skipped) + ": warning: unknown record tag 0x10 skipped\n");
  }
}

// Version 4's transient CALL (kinds 5 and 6): an allocation released at once, as memtransfer
// records every transfer. Its release has the allocation's function, type, context, timestamp,
// id and thread, size 0, no arguments, and no backtrace (5) or the allocation's (6); both count
// for references: a later allocation refers to the release, a later release to the allocation.
TEST(CompactFormat, Version4TransientCallsAreAnAllocationAndItsRelease) {
  const auto transient_trace = [&](std::uint8_t major) {
    B trace(major);
    trace.trace()
        .record(Tag::Function, B::str("memcpy"))
        .record(Tag::Function, B::str("malloc"))
        .record(Tag::Function, B::str("free"))
        .record(Tag::Stack, B::varint(2) + B::varint(compact::zigzag(0x401000)) +
                                B::varint(compact::zigzag(0x10)))
        .bare_call(compact::kTransientKind | kTypeContext | kTimestamp | kArguments,
                   B::varint(1) + B::varint(2) + B::varint(0) + B::varint(compact::zigzag(7)) +
                       B::varint(compact::zigzag(0x5000)) + B::varint(64) +
                       B::varint(1 + compact::kRecentStacks) +  // stack 1, new to the slot
                       B::varint(1) + B::str("src") + B::str("0x6000"))
        .bare_call(compact::kTransientWithReleaseStackKind,
                   B::varint(1) + B::varint(compact::zigzag(0x100)) + B::varint(8) +
                       B::varint(1))  // the slot's latest stack
        // malloc gets the block memcpy's release gave back: the latest release but one.
        .bare_call(kAlloc | kReference, B::varint(2) + B::varint(2) + B::varint(24) + B::varint(0))
        // free of the latest allocation: that malloc.
        .bare_call(kFree | kReference, B::varint(3) + B::varint(1) + B::varint(0) + B::varint(0));
    return trace;
  };
  B trace = transient_trace(4);
  trace.end();
  const auto read = read_any(trace.bytes());
  ASSERT_EQ(read->error, "");
  EXPECT_EQ(read->warnings, "");
  const std::vector<std::string> expected = {
      std::string("call #1 memcpy kind=2 type=2 ctx=0x0 ts=7 size=64 id=0x5000 $src=0x6000 ") +
          "bt=[0x401000,0x401010]",
      "call #2 memcpy kind=1 type=2 ctx=0x0 ts=7 size=0 id=0x5000",
      "call #3 memcpy kind=2 type=2 ctx=0x0 ts=7 size=8 id=0x5100 bt=[0x401000,0x401010]",
      "call #4 memcpy kind=1 type=2 ctx=0x0 ts=7 size=0 id=0x5100 bt=[0x401000,0x401010]",
      "call #5 malloc kind=2 type=2 ctx=0x0 ts=7 size=24 id=0x5000",
      "call #6 free kind=1 type=2 ctx=0x0 ts=7 size=0 id=0x5000",
  };
  EXPECT_EQ(call_lines(read->sink.lines()), expected);

  // Before version 4 the kinds are unknown: an error at the first one's offset.
  B old = transient_trace(3);
  const std::size_t first_transient = old.bytes().find(static_cast<char>(
      compact::kBareCall | compact::kTransientKind | kTypeContext | kTimestamp | kArguments));
  ASSERT_NE(first_transient, std::string::npos);
  EXPECT_EQ(read_any(old.bytes())->error,
            "trace:" + std::to_string(first_transient) + ": unknown call flags 0x6d");

  // Cut inside a transient CALL: the calls before it, the rest dropped with a warning.
  const std::size_t second = trace.bytes().find(
      static_cast<char>(compact::kBareCall | compact::kTransientWithReleaseStackKind));
  ASSERT_NE(second, std::string::npos);
  const auto cut = read_any(trace.bytes().substr(0, second + 3));
  EXPECT_EQ(cut->error, "");
  EXPECT_EQ(cut->sink.call_count(), 2U);
  EXPECT_EQ(cut->warnings, "trace:" + std::to_string(second) +
                               ": warning: truncated record (3 of 4 bytes); ignored\n");
}

// Version 4's stack field: a stack among the slot's kRecentStacks latest is written as its place
// (1: the latest), another as its id + kRecentStacks; each slot keeps its own, and a RESET of the
// stacks empties them all. A place the slot has no stack for is an error at the call's offset.
TEST(CompactFormat, Version4StacksByTheirPlaceAmongTheThreadsRecentOnes) {
  const auto stack_record = [](std::uint64_t frame) {
    return B::varint(1) + B::varint(compact::zigzag(static_cast<std::int64_t>(frame)));
  };
  const auto alloc = [](std::uint64_t stack_field) {
    return B::varint(1) + B::varint(compact::zigzag(0x10)) + B::varint(8) + B::varint(stack_field);
  };
  constexpr std::uint64_t kNew = compact::kRecentStacks;
  B trace(4);
  trace.trace()
      .record(Tag::Function, B::str("malloc"))
      .record(Tag::Stack, stack_record(0x1000))
      .record(Tag::Stack, stack_record(0x1000))  // frames are deltas: 0x2000
      .record(Tag::Stack, stack_record(0x1000))  // 0x3000
      .bare_call(kAlloc, alloc(1 + kNew))        // stack 1 -> recent 1
      .bare_call(kAlloc, alloc(2 + kNew))        // stack 2 -> recent 2 1
      .bare_call(kAlloc, alloc(2))               // stack 1 -> recent 1 2
      .record(Tag::Thread, thread_record(1, 7))
      .bare_call(kAlloc, alloc(3 + kNew))         // slot 1's own: stack 3 -> recent 3
      .bare_call(kAlloc, alloc(1))                // stack 3
      .bare_call(compact::kThreadSwitchKind, "")  // back to slot 0
      .bare_call(kAlloc, alloc(2));               // stack 2 -> recent 2 1
  trace.record(Tag::Reset, B::varint(static_cast<std::uint8_t>(compact::Table::Stacks)))
      .record(Tag::Stack, stack_record(0x1000))
      .bare_call(kAlloc, alloc(1 + kNew));  // the new stack 1
  const std::size_t forgotten = trace.size();
  B good = trace;
  good.end();
  const auto read = read_any(good.bytes());
  ASSERT_EQ(read->error, "");
  std::vector<std::string> frames;
  for (const std::string& line : call_lines(read->sink.lines())) {
    frames.push_back(line.substr(line.find(" bt=")));
  }
  const std::vector<std::string> expected = {" bt=[0x1000]", " bt=[0x2000]", " bt=[0x1000]",
                                             " bt=[0x3000]", " bt=[0x3000]", " bt=[0x2000]",
                                             " bt=[0x4000]"};
  EXPECT_EQ(frames, expected);

  B after_reset = trace;
  after_reset.bare_call(kAlloc, alloc(2));  // recent 2 went with the RESET
  EXPECT_EQ(read_any(after_reset.bytes())->error,
            "trace:" + std::to_string(forgotten) + ": recent stack 2 of a thread with fewer");
  B fresh_slot = trace;
  fresh_slot.record(Tag::Thread, thread_record(2, 9));
  const std::size_t at = fresh_slot.size();
  fresh_slot.bare_call(kAlloc, alloc(1));
  EXPECT_EQ(read_any(fresh_slot.bytes())->error,
            "trace:" + std::to_string(at) + ": recent stack 1 of a thread with fewer");
}

// Version 6's STACK: the frames written, then the outermost `shared` frames of the stack `base`
// ids back; the stack becomes the slot's latest. A stack may be the base's outer frames alone
// (none written), its base one with a base of its own, or after a RESET only the stacks defined
// since. Each impossible count or base is an error at the STACK's offset.
TEST(CompactFormat, Version6StacksShareTheOuterFramesOfAnEarlierOne) {
  const auto frames = [](std::initializer_list<std::int64_t> deltas) {
    std::string out;
    for (const std::int64_t delta : deltas) {
      out += B::varint(compact::zigzag(delta));
    }
    return out;
  };
  const auto alloc = [](std::uint64_t stack) {
    return B::varint(1) + B::varint(compact::zigzag(0x10)) + B::varint(8) +
           B::varint(stack + compact::kRecentStacks);
  };
  // A STACK makes its stack the slot's latest: the call after it names it as such.
  const std::string latest =
      B::varint(1) + B::varint(compact::zigzag(0x10)) + B::varint(8) + B::varint(1);
  B trace(6);
  trace.trace()
      .record(Tag::Function, B::str("malloc"))
      // 1: 0x1000 0x2000 0x3000, all written.
      .record(Tag::Stack, B::varint(3) + B::varint(0) + frames({0x1000, 0x1000, 0x1000}))
      // 2: 0x1100 0x1200, then stack 1's outer two.
      .record(Tag::Stack, B::varint(4) + B::varint(2) + B::varint(1) + frames({-0x1F00, 0x100}))
      // 3: stack 1's outer two, nothing written.
      .record(Tag::Stack, B::varint(2) + B::varint(2) + B::varint(2))
      // 4: 0x1300, then stack 2's outer three (its own 0x1200 and stack 1's).
      .record(Tag::Stack, B::varint(4) + B::varint(3) + B::varint(2) + frames({0x100}));
  for (std::uint64_t stack = 1; stack <= 4; ++stack) {
    trace.bare_call(kAlloc, alloc(stack));
  }
  trace.record(Tag::Reset, B::varint(static_cast<std::uint8_t>(compact::Table::Stacks)))
      .record(Tag::Stack, B::varint(1) + B::varint(0) + frames({0x100}))  // 0x1400
      .bare_call(kAlloc, latest)
      .record(Tag::Stack, B::varint(2) + B::varint(1) + B::varint(1) + frames({0x100}))
      .bare_call(kAlloc, latest);
  B good = trace;
  good.end();
  const auto read = read_any(good.bytes());
  ASSERT_EQ(read->error, "");
  std::vector<std::string> backtraces;
  for (const std::string& line : call_lines(read->sink.lines())) {
    backtraces.push_back(line.substr(line.find(" bt=")));
  }
  const std::vector<std::string> expected = {" bt=[0x1000,0x2000,0x3000]",
                                             " bt=[0x1100,0x1200,0x2000,0x3000]",
                                             " bt=[0x2000,0x3000]",
                                             " bt=[0x1300,0x1200,0x2000,0x3000]",
                                             " bt=[0x1400]",
                                             " bt=[0x1500,0x1400]"};
  EXPECT_EQ(backtraces, expected);

  const auto damaged = [&](const std::string& payload, const std::string& message) {
    B bad = trace;
    const std::size_t at = bad.size();
    bad.record(Tag::Stack, payload);
    EXPECT_EQ(read_any(bad.bytes())->error, "trace:" + std::to_string(at) + ": " + message);
  };
  damaged(B::varint(1) + B::varint(2) + B::varint(1), "2 shared frames in a stack of 1");
  damaged(B::varint(3) + B::varint(2) + B::varint(0), "undefined base stack (0 back from stack 3)");
  damaged(B::varint(3) + B::varint(2) + B::varint(3),
          "undefined base stack (3 back from stack 3)");  // stack 0: gone with the RESET
  damaged(B::varint(3) + B::varint(2) + B::varint(2), "2 shared frames of a stack of 1");
  damaged(B::varint(3) + B::varint(1) + B::varint(1) + frames({1}),
          "frame count 2 larger than the record holds");
}

// rtrace's writer defines each new stack by the earlier one sharing the most outer frames with
// it (the first to have them), writing only the frames that differ: the exact STACK payloads of
// five stacks, from all shared to none.
TEST(CompactFormat, WriterSharesTheOuterFramesOfTheStacksWrittenBefore) {
  const std::vector<std::vector<std::int64_t>> stacks = {{0x10, 0x20, 0x30, 0x40},
                                                         {0x11, 0x20, 0x30, 0x40},
                                                         {0x12, 0x21, 0x30, 0x40},
                                                         {0x30, 0x40},
                                                         {0x13, 0x99}};
  B input(5);
  input.trace().record(Tag::Function, B::str("malloc"));
  std::int64_t previous = 0;
  for (const auto& stack : stacks) {
    std::string payload = B::varint(stack.size());
    for (const std::int64_t frame : stack) {
      payload += B::varint(compact::zigzag(frame - previous));
      previous = frame;
    }
    input.record(Tag::Stack, payload);
  }
  for (std::uint64_t stack = 1; stack <= stacks.size(); ++stack) {
    input.bare_call(kAlloc, B::varint(1) + B::varint(compact::zigzag(0x10)) + B::varint(8) +
                                B::varint(stack + compact::kRecentStacks));
  }
  input.end();
  const std::string compact = convert_to(input.bytes(), "compact");
  std::vector<std::string> written;
  for_each_record(compact, [&](Tag tag, std::string_view payload) {
    if (tag == Tag::Stack) {
      written.emplace_back(payload);
    }
  });
  const auto z = [](std::int64_t delta) { return B::varint(compact::zigzag(delta)); };
  const std::vector<std::string> expected = {
      B::varint(4) + B::varint(0) + z(0x10) + z(0x10) + z(0x10) + z(0x10),
      B::varint(4) + B::varint(3) + B::varint(1) + z(0x11 - 0x40),
      B::varint(4) + B::varint(2) + B::varint(2) + z(0x12 - 0x11) + z(0x21 - 0x12),
      B::varint(2) + B::varint(2) + B::varint(3),
      B::varint(2) + B::varint(0) + z(0x13 - 0x21) + z(0x99 - 0x13)};
  EXPECT_EQ(written, expected);
  EXPECT_EQ(call_lines(read_any(compact)->sink.lines()),
            call_lines(read_any(input.bytes())->sink.lines()));
}

// A trace the tracer wrote in version 5 (two threads of bench/churn/churn.c, 64 frames deep,
// recorded before version 6) reads as the text kept beside it, written from it when it was
// recorded; rewritten by rtrace's writer in the current version, with its stacks sharing their
// outer frames, it reads the same.
TEST(CompactFormat, ATracerTraceOfVersion5ReadsAsItDidAndSoAfterARewrite) {
  const auto data = source_dir() / "tests" / "formats" / "compact" / "data";
  const std::string version5 = read_file(data / "churn-2-threads-v5.rtrace");
  ASSERT_EQ(version5[compact::kMagicSize], 5);
  const std::string printed = read_file(data / "churn-2-threads-v5.txt");
  EXPECT_EQ(convert_to(version5, "text"), printed);
  const std::string rewritten = convert_to(version5, "compact");
  EXPECT_EQ(rewritten[compact::kMagicSize], compact::kMajor);
  std::vector<std::uint64_t> shared;  // of each STACK record
  for_each_record(rewritten, [&](Tag tag, std::string_view payload) {
    if (tag != Tag::Stack) {
      return;
    }
    const std::string stack(payload);
    std::size_t at = 0;
    next_varint(stack, at);  // the frame count
    shared.push_back(next_varint(stack, at));
  });
  // The start-up's calloc, the threads' first churn stack (nothing in common with it), three
  // more of the churn's recursion sharing 16 to 18 outer frames with it, main's own malloc
  // sharing the start-up's 3 outermost (_start and libc's start of main).
  EXPECT_EQ(shared, (std::vector<std::uint64_t>{0, 0, 16, 17, 18, 3}));
  EXPECT_EQ(convert_to(rewritten, "text"), printed);
}

// A version 5 CALL's size fields, in file order (every call without arguments).
std::vector<std::uint64_t> size_fields(const std::string& compact) {
  std::vector<std::uint64_t> fields;
  for_each_record(compact, [&](Tag tag, std::string_view payload) {
    if (tag != Tag::Call) {
      return;
    }
    const std::string call(payload);
    const auto flags = static_cast<std::uint8_t>(call[0]);
    std::size_t at = 1;
    std::size_t before_size = 2;  // the function and the resource
    before_size += (flags & compact::kCallHasTypeAndContext) != 0 ? 2 : 0;
    before_size += (flags & compact::kCallHasTimestamp) != 0 ? 1 : 0;
    for (std::size_t i = 0; i < before_size; ++i) {
      next_varint(call, at);
    }
    fields.push_back(next_varint(call, at));
  });
  return fields;
}

// Version 5: a CALL's size is written against its THREAD slot's size base, the last nonzero size
// of the slot's calls: 0 is the base, a field up to the base is a smaller size + 1, a larger
// field is the size itself. Every 64-bit size has a field (2^64 - 1 too), and each slot has its
// own base. Version 4 reads the same fields as the sizes themselves.
TEST(CompactFormat, Version5SizesAgainstTheThreadsLastOne) {
  constexpr std::uint64_t kMax = ~std::uint64_t{0};
  const auto sized = [](std::uint8_t major) {
    const auto call = [](std::uint64_t function, std::uint64_t size_field) {
      return B::varint(function) + B::varint(0) + B::varint(size_field) + B::varint(0);
    };
    B trace(major);
    trace.trace().record(Tag::Function, B::str("memcpy")).record(Tag::Function, B::str("free"));
    trace
        .bare_call(kAlloc | kTypeContext | kTimestamp,
                   B::varint(1) + B::varint(1) + B::varint(0) + B::varint(compact::zigzag(5)) +
                       B::varint(compact::zigzag(0x1000)) + B::varint(40) + B::varint(0))
        .bare_call(0, call(1, 0))  // the base: 40
        .bare_call(0, call(2, 1))  // 0, and the base stays 40
        .bare_call(0, call(1, 0))  // 40
        .bare_call(0, call(1, 8))  // 7, the new base
        .record(Tag::Thread, thread_record(1, 9))
        .bare_call(0, call(1, 0))     // slot 1's own base: 0
        .bare_call(0, call(1, kMax))  // above the base: itself
        .bare_call(0, call(1, 0))     // the base: 2^64 - 1
        .bare_call(0, call(1, kMax))  // below the base: 2^64 - 2
        .bare_call(compact::kThreadSwitchKind, "")
        .bare_call(0, call(1, 0));  // slot 0's base: 7
    trace.end();
    return trace.bytes();
  };
  const auto sizes_read = [](const std::string& bytes) {
    const auto read = read_any(bytes);
    EXPECT_EQ(read->error, "");
    EXPECT_EQ(read->warnings, "");
    std::vector<std::string> sizes;
    for (const std::string& line : call_lines(read->sink.lines())) {
      const std::size_t at = line.find(" size=") + 6;
      sizes.push_back(line.substr(at, line.find(' ', at) - at));
    }
    return sizes;
  };
  const std::string max = std::to_string(kMax);
  const std::string below_max = std::to_string(kMax - 1);
  const std::vector<std::string> expected = {"40", "40", "0", "40",      "7",
                                             "0",  max,  max, below_max, "7"};
  EXPECT_EQ(sizes_read(sized(5)), expected);
  EXPECT_EQ(sizes_read(sized(4)),
            (std::vector<std::string>{"40", "0", "1", "0", "8", "0", max, "0", max, "0"}));

  // rtrace's writer writes version 6 (version 5's size fields) and the same fields; its output
  // reads as its input.
  const std::string rewritten = convert_to(sized(5), "compact");
  EXPECT_EQ(rewritten[compact::kMagicSize], 6);
  EXPECT_EQ(size_fields(rewritten),
            (std::vector<std::uint64_t>{40, 0, 1, 0, 8, 0, kMax, 0, kMax, 0}));
  EXPECT_EQ(sizes_read(rewritten), expected);
  // And a version 4 trace's sizes, whatever they are, come back as they were.
  EXPECT_EQ(sizes_read(convert_to(sized(4), "compact")), sizes_read(sized(4)));
}

// END of version 5 goes on with the wall clock when the trace ended (zigzag seconds since the
// Epoch, microseconds), which rtrace's writer keeps; an END without it (version 4's) gives time 0,
// and microseconds of a second or more are an error at the record.
TEST(CompactFormat, Version5EndKeepsTheWallClock) {
  const auto ended = [](const std::string& wall) {
    B trace(5);
    trace.trace().record(Tag::Process, B::varint(42) + B::varint(0) + B::varint(0) + B::varint(0) +
                                           B::str("./prog"));
    const std::size_t at = trace.size();
    trace.record(Tag::End, B::varint(4) + B::varint(11) + B::varint(8192) + B::varint(4096) +
                               B::varint(10) + wall);
    return std::pair(trace.bytes(), at);
  };
  const auto end_line = [](const std::string& bytes) {
    const auto read = read_any(bytes);
    EXPECT_EQ(read->error, "");
    EXPECT_EQ(read->warnings, "");
    for (const std::string& line : read->sink.lines()) {
      if (line.starts_with("end ")) {
        return line;
      }
    }
    return std::string("(no end)");
  };
  const std::string with_wall =
      ended(B::varint(compact::zigzag(1763919601)) + B::varint(123456)).first;
  const std::string expected =
      "end pid=42 reason=signal signal=11 time=1763919601.123456 peak=8192 rss=4096";
  EXPECT_EQ(end_line(with_wall), expected);
  EXPECT_EQ(end_line(convert_to(with_wall, "compact")), expected);
  EXPECT_EQ(end_line(convert_to(convert_to(with_wall, "binary"), "compact")), expected);
  EXPECT_EQ(end_line(ended("").first),
            "end pid=42 reason=signal signal=11 time=0.000000 peak=8192 rss=4096");

  const auto [bad, at] = ended(B::varint(compact::zigzag(1763919601)) + B::varint(1'000'000));
  EXPECT_EQ(read_any(bad)->error,
            "trace:" + std::to_string(at) + ": wall-clock microseconds 1000000 out of range");
}

// `data` as one zstd frame flushed after `keep` bytes and at the end, not ended; and where the
// block after the first flush begins.
std::pair<std::string, std::size_t> zstd_flushed_twice(const std::string& data, std::size_t keep) {
  ZSTD_CCtx* context = ZSTD_createCCtx();
  std::string out(ZSTD_compressBound(data.size()) + 64, '\0');
  ZSTD_outBuffer sink{out.data(), out.size(), 0};
  std::size_t first_end = 0;
  for (const std::size_t until : {keep, data.size()}) {
    ZSTD_inBuffer in{data.data(), until, first_end == 0 ? 0 : keep};
    std::size_t left = 1;
    while (left != 0) {
      left = ZSTD_compressStream2(context, &sink, &in, ZSTD_e_flush);
      EXPECT_FALSE(ZSTD_isError(left));
      if (ZSTD_isError(left)) {
        break;
      }
    }
    if (first_end == 0) {
      first_end = sink.pos;
    }
  }
  ZSTD_freeCCtx(context);
  out.resize(sink.pos);
  return {out, first_end};
}

// The tracer writes a compact trace as one zstd frame, flushed at every write. A process killed
// by SIGKILL leaves the frame unended: every record is still read, with a warning at the
// compressed byte offset. Cut inside, the records before the cut; corrupt, an error at the
// offset of the damaged block, after the records before it.
TEST(CompactFormat, InsideAZstdFrameCutOrDamaged) {
  RTRACE_NEEDS_FIXTURES();
  const std::string compact = memory_compact();
  const auto intact = read_any(compact);
  ASSERT_EQ(intact->warnings, "");
  const auto& whole = intact->sink.lines();

  const std::string unended = zstd_cut(compact, compact.size());
  const auto killed = read_any(unended, 1 << 20, true);
  EXPECT_EQ(killed->error, "");
  EXPECT_EQ(killed->sink.lines(), whole);
  EXPECT_EQ(killed->warnings, "trace:" + std::to_string(unended.size()) +
                                  ": warning: zstd data ends inside a frame (a truncated file?)\n");

  const std::size_t keep = compact.size() / 2;
  const std::string half = zstd_cut(compact, keep);
  const auto cut = read_any(half, 1 << 20, true);
  EXPECT_EQ(cut->error, "");
  const auto& part = cut->sink.lines();
  ASSERT_LT(part.size(), whole.size());
  ASSERT_GT(part.size(), whole.size() / 5);
  EXPECT_TRUE(std::equal(part.begin(), part.end(), whole.begin()));
  EXPECT_NE(cut->warnings.find("trace:" + std::to_string(half.size()) +
                               ": warning: zstd data ends inside a frame"),
            std::string::npos)
      << cut->warnings;

  // Flushed after the first half, as the tracer flushes after each write; then the header of the
  // block after the flush made invalid (block type 3 is reserved): the first half's records, then
  // the error.
  auto [damaged, second_block] = zstd_flushed_twice(compact, keep);
  damaged[second_block] = static_cast<char>(damaged[second_block] | 0x06);
  const auto bad = read_any(damaged, 1 << 20, true);
  EXPECT_TRUE(
      bad->error.starts_with("trace:" + std::to_string(second_block) + ": corrupt zstd data: "))
      << bad->error << " (the block at " << second_block << ")";
  const auto& before = bad->sink.lines();
  EXPECT_LT(before.size(), whole.size());
  EXPECT_GT(before.size(), whole.size() / 5);
  EXPECT_TRUE(std::equal(before.begin(), before.end(), whole.begin()));
}

}  // namespace
}  // namespace rtrace::test
