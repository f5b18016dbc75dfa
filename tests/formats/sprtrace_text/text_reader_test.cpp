// The text reader: every line form it understands, and what it does with damaged input.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "filters/expand_stage.h"
#include "formats/sprtrace_text/resolved_frame.h"
#include "formats/sprtrace_text/text_test_support.h"
#include "support/recording_sink.h"
#include "support/test_paths.h"

namespace rtrace::test {
namespace {

constexpr const char* kHeader =
    "version=2.0, arch=x86_64, timestamp=2026.11.21 11:09:09, process=./my app, pid=778, "
    "filter=leaks|resolve, backtrace depth=10, origin=sp-rtrace 1.8, \n";

struct Outcome {
  RecordingSink sink;
  std::string warnings;
  std::string error;  // what the InputError said, empty when none was thrown
};

void read_into(const std::string& text, Outcome& outcome) {
  CollectingDiagnostics diagnostics;
  const std::unique_ptr<InputStream> input = input_from(text);
  try {
    read_sprtrace_text(*input, outcome.sink, diagnostics);
  } catch (const InputError& e) {
    outcome.error = e.what();
  }
  outcome.warnings = diagnostics.text();
}

std::vector<std::string> calls_of(const RecordingSink& sink) {
  std::vector<std::string> calls;
  for (const std::string& line : sink.lines()) {
    if (line.starts_with("call ")) {
      calls.push_back(line);
    }
  }
  return calls;
}

TEST(TextReader, EveryLineForm) {
  Outcome o;
  read_into(std::string(kHeader) +
                "## tracing module: [0] main (1.0)\n"
                "# a temporary comment, dropped\n"
                "@ 1 : first context\n"
                "@ 2 : \n"
                "<1> : memory (memory allocation in bytes)\n"
                "<10> : segment (shared memory (SysV) segment) [refcount]\n"
                ": /usr/lib/lib c.so => 0x7f00-0x7fff\n"
                "& maps : /tmp/maps file\n"
                "comment without hash\n"
                "1. @3 [01:02:03.004] malloc<memory>(16) = 0x15dcf2a0\n"
                "\t$path = /tmp/a b = c\n"
                "\t0x40126e\n"
                "\t0x401000 main() from /tmp/prog\n"
                "\t0x401001 std::vector<int, std::allocator<int> >::push_back(int const&) at "
                "vector.h:12\n"
                "\t0x401002 from /usr/lib/libc.so.6\n"
                "\t0x401003 in ??\n"
                "\t0x401004 in spec() from /lib/x.so\n"
                "\t0x401005 in spec2() at x.c:5\n"
                "\t0x401006 operator new(unsigned long) from /lib/libstdc++.so\n"
                "\n"
                "2. [14:54:26.319123] shmdt<10>(0x15DCF2A0)\n"
                "\n"
                "3. free(0x0)\n"
                "\t0x401000 main() from /tmp/prog\n"
                "\n",
            o);
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(o.warnings, "");
  EXPECT_EQ(o.sink.finish_count(), 1);
  const std::vector<std::string> expected = {
      "handshake 2.0 arch=x86_64 LE ptr=8 origin=sp-rtrace 1.8 filters=lr",
      "process pid=778 name=./my app start=1795259349.000000 text=2026.11.21 11:09:09 depth=10",
      "module [0] main (1.0)",
      "context 0x1 first context",
      "context 0x2 ",
      "resource 1 flags=0x0 memory (memory allocation in bytes)",
      "resource 5 flags=0x1 segment (shared memory (SysV) segment)",
      "mapping 0x7f00-0x7fff /usr/lib/lib c.so",
      "attachment maps /tmp/maps file",
      "note comment without hash",
      std::string("call #1 malloc kind=2 type=1 ctx=0x3 ts=3723004 size=16 id=0x15dcf2a0 ") +
          "$path=/tmp/a b = c " +
          "bt=[0x40126e,0x401000<main() in /tmp/prog>,"
          "0x401001<std::vector<int, std::allocator<int> >::push_back(int const&) at vector.h:12>,"
          "0x401002< in /usr/lib/libc.so.6>,0x401003<?"
          "?>,0x401004<spec() in /lib/x.so>,"
          "0x401005<spec2() at x.c:5>,"
          "0x401006<operator new(unsigned long) in /lib/libstdc++.so>]",
      "call #2 shmdt kind=1 type=5 ctx=0x0 ts=53666319 size=0 id=0x15dcf2a0",
      "call #3 free kind=1 type=0 ctx=0x0 ts=0 size=0 id=0x0 bt=[0x401000<main() in /tmp/prog>]",
  };
  // Symbols are announced once each, however many frames name them.
  EXPECT_EQ(o.sink.symbols().size(), 7U);
  EXPECT_EQ(o.sink.lines(), expected) << o.sink.text();
}

// rtrace's extension lines (docs/protocol-extensions.md): the command line right after the line
// of its process completes that process; a trace end anywhere; lines that only look like them
// stay notes.
TEST(TextReader, CommandLineAndTraceEndLines) {
  Outcome o;
  read_into(std::string(kHeader) +
                "## command line: ./my\\ app 'a b' $'\\x09'\n"
                "## command line: 'unclosed\n"
                "## trace end: pid=778, reason=signal, signal=6, time=12.000034, peak rss=4096, "
                "rss=2048\n"
                "## trace end: pid=778, reason=vanished, time=1.000000, peak rss=1, rss=1\n"
                "## process: pid=9, process=./child, timestamp=2026.11.21 11:09:09, \n"
                "## command line (cut): ./child\n",
            o);
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(o.warnings, "");
  const std::vector<std::string> expected = {
      "handshake 2.0 arch=x86_64 LE ptr=8 origin=sp-rtrace 1.8 filters=lr",
      "process pid=778 name=./my app start=1795259349.000000 text=2026.11.21 11:09:09 depth=10 "
      "argv=[./my app|a b|\t]",
      "note ## command line: 'unclosed",
      "end pid=778 reason=signal signal=6 time=12.000034 peak=4096 rss=2048",
      "note ## trace end: pid=778, reason=vanished, time=1.000000, peak rss=1, rss=1",
      "process pid=9 name=./child start=1795259349.000000 text=2026.11.21 11:09:09 depth=none "
      "argv=[./child] cut",
  };
  EXPECT_EQ(o.sink.lines(), expected) << o.sink.text();
}

// The reader gives a compressed file as it is: each group announced, then its calls with the
// group's backtrace, then the leak summaries. (`rtrace process` expands it: see ExpandStage.)
TEST(TextReader, CompressedGroupsAsTheFileHasThem) {
  RTRACE_NEEDS_FIXTURES();
  Outcome o;
  read_into(read_file(fixture("sp-rtrace/memory/memory.lc.txt")), o);
  EXPECT_EQ(o.error, "");
  std::vector<std::string> structure;
  for (const std::string& line : o.sink.lines()) {
    if (line.starts_with("group") || line.starts_with("leaks")) {
      structure.push_back(line);
    } else if (line.starts_with("call")) {
      structure.push_back(line.substr(0, line.find(' ', 6)));
    }
  }
  EXPECT_EQ(structure, (std::vector<std::string>{
                           "group calls=1 blocks=1 size=64",
                           "call #25",
                           "group calls=2 blocks=2 size=200",
                           "call #19",
                           "call #20",
                           "group calls=1 blocks=1 size=240",
                           "call #21",
                           "group calls=1 blocks=1 size=300",
                           "call #24",
                           "group calls=1 blocks=1 size=4096",
                           "call #44",
                           "leaks type=1 memory (memory allocation in bytes) blocks=6 bytes=4900",
                       }))
      << o.sink.text();
  EXPECT_EQ(o.sink.lines().front(),
            "handshake 2.0 arch=x86_64 LE ptr=8 origin=sp-rtrace 1.8 filters=lc");
}

TEST(ExpandStage, CompressedGroupsExpandInIndexOrder) {
  RTRACE_NEEDS_FIXTURES();
  Outcome o;
  {
    const std::unique_ptr<InputStream> input =
        open_input(fixture("sp-rtrace/memory/memory.lc.txt").string());
    CollectingDiagnostics diagnostics;
    ExpandStage expand(o.sink);
    read_sprtrace_text(*input, expand, diagnostics);
  }
  const std::vector<std::string> calls = calls_of(o.sink);
  ASSERT_EQ(calls.size(), 6U);
  EXPECT_TRUE(
      calls[0].starts_with("call #19 malloc kind=2 type=1 ctx=0x0 ts=438233 size=100 "
                           "id=0x15dd0880 bt=[0x4011ae,0x401303,"))
      << calls[0];
  EXPECT_TRUE(calls[1].starts_with("call #20 malloc ")) << calls[1];
  EXPECT_TRUE(
      calls[1].ends_with("bt=[0x4011ae,0x401303,0x401322,0x40132e,0x401400,"
                         "0x7f756905424a,0x7f7569054305,0x4010d1]"))
      << calls[1];
  EXPECT_TRUE(calls[2].starts_with("call #21 calloc ")) << calls[2];
  EXPECT_TRUE(calls[3].starts_with("call #24 realloc ")) << calls[3];
  EXPECT_TRUE(calls[4].starts_with("call #25 posix_memalign ")) << calls[4];
  EXPECT_TRUE(calls[5].starts_with("call #44 malloc ")) << calls[5];
  // The header drops compress: the calls come out expanded; the summaries are gone.
  EXPECT_EQ(o.sink.lines().front(),
            "handshake 2.0 arch=x86_64 LE ptr=8 origin=sp-rtrace 1.8 filters=l");
  for (const std::string& line : o.sink.lines()) {
    EXPECT_FALSE(line.starts_with("group") || line.starts_with("leaks")) << line;
  }
}

TEST(TextReader, SymbolsAnnouncedOnceEach) {
  RTRACE_NEEDS_FIXTURES();
  Outcome o;
  read_into(read_file(fixture("sp-rtrace/memory/memory.lcr.txt")), o);
  EXPECT_EQ(o.error, "");
  // The distinct resolved names of the file (`grep -oP '^\t0x[0-9a-f]+ \K.*' | sort -u`).
  EXPECT_EQ(o.sink.symbols().size(), 16U);
  const std::vector<std::string> calls = calls_of(o.sink);
  ASSERT_FALSE(calls.empty());
  EXPECT_TRUE(
      calls.front().ends_with("bt=[0x401239<leaf_memalign_leak() in /tmp/ref/progs/memory>,"
                              "0x401389<level3_c() in /tmp/ref/progs/memory>,"
                              "0x4013a8<level2_c() in /tmp/ref/progs/memory>,"
                              "0x4013b4<level1_c() in /tmp/ref/progs/memory>,"
                              "0x401414<main() in /tmp/ref/progs/memory>,"
                              "0x7f756905424a< in /usr/lib/x86_64-linux-gnu/libc.so.6>,"
                              "0x7f7569054305< in /usr/lib/x86_64-linux-gnu/libc.so.6>,"
                              "0x4010d1<_start() in /tmp/ref/progs/memory>]"))
      << calls.front();
}

TEST(TextReader, EveryOriginalTextOutputReads) {
  RTRACE_NEEDS_FIXTURES();
  for (const char* name :
       {"memory/memory.txt", "memory/memory.c.txt", "memory/memory.r.txt",
        "memory/memory.lc.resolve-default.txt", "memory/memory.c.b4.txt", "fd/fd.c.txt",
        "fd/fd.lcr.txt", "shmsysv/shmsysv.lc.txt", "context/context.lc.C6.txt",
        "upstream-tests/context.txt.C2.lc", "upstream-tests/sample.txt.r.r"}) {
    Outcome o;
    read_into(read_file(fixture(std::string("sp-rtrace/") + name)), o);
    EXPECT_EQ(o.error, "") << name;
    EXPECT_EQ(o.warnings, "") << name;
    EXPECT_GT(o.sink.call_count(), 0U) << name;
  }
}

// Damage: everything complete before the bad line is delivered, finish() is called once, and
// the error names the line.
void expect_error_at(const std::string& damaged_tail, const std::string& where,
                     const std::string& message_part) {
  Outcome o;
  read_into(std::string(kHeader) + "1. malloc(16) = 0x10\n\t0x401000\n\n" + damaged_tail, o);
  EXPECT_EQ(o.error.substr(0, where.size() + 1), where + ":") << o.error;
  EXPECT_NE(o.error.find(message_part), std::string::npos) << o.error;
  EXPECT_EQ(o.sink.finish_count(), 1) << damaged_tail;
  ASSERT_EQ(o.sink.call_count(), 1U) << damaged_tail;
  EXPECT_EQ(calls_of(o.sink).front(),
            "call #1 malloc kind=2 type=0 ctx=0x0 ts=0 size=16 id=0x10 bt=[0x401000]");
}

TEST(TextReaderDamage, BinaryGarbage) {
  expect_error_at("## fine\n\x01\x02\xf0garbage\n", "input.txt:6", "control character");
}

TEST(TextReaderDamage, NulByte) {
  expect_error_at(std::string("## ok\n## not\0ok\n", 15), "input.txt:6", "NUL byte");
}

TEST(TextReaderDamage, OverlongLine) {
  expect_error_at("## " + std::string(InputStream::kMaxLine + 10, 'x') + "\n", "input.txt:5",
                  "longer than");
}

// A call of an unnamed function, and an unnamed argument (the other formats hold them; the text
// writer writes them so), read back as they are.
TEST(TextReader, CallWithAnEmptyFunctionName) {
  Outcome o;
  read_into(std::string(kHeader) + "1. ({call})\n\t$ = \n\n2. (5) = 0x10\n\n", o);
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(o.warnings, "");
  EXPECT_EQ(o.sink.call_count(), 2U);
}

TEST(TextReaderDamage, MalformedCallLines) {
  expect_error_at("2. malloc(abc) = 0x10\n", "input.txt:5", "bad size");
  expect_error_at("2. malloc(-5) = 0x10\n", "input.txt:5", "bad size");
  expect_error_at("2. malloc(5) = 0xzz\n", "input.txt:5", "bad resource id");
  expect_error_at("2. malloc\n", "input.txt:5", "malformed call record");
  expect_error_at("2.malloc(5) = 0x10\n", "input.txt:5", "expected '<index>. '");
  expect_error_at("2. @zz malloc(5) = 0x10\n", "input.txt:5", "bad context mask");
  expect_error_at("2. [12:00] malloc(5) = 0x10\n", "input.txt:5", "bad timestamp");
  expect_error_at("2. [12:61:00.000] malloc(5) = 0x10\n", "input.txt:5", "bad timestamp");
  expect_error_at("2. free(10)\n", "input.txt:5", "bad resource id");
  expect_error_at("2. malloc<nosuchtype>(5) = 0x10\n", "input.txt:5", "unknown resource type");
  expect_error_at("2. scope({jump})\n", "input.txt:5", "bad call kind");
  expect_error_at("2. scope({enter)\n", "input.txt:5", "bad call kind");
  expect_error_at("2. scope({enter}x)\n", "input.txt:5", "bad size");
  expect_error_at("2. scope({call} 5) = 0xzz\n", "input.txt:5", "bad resource id");
}

TEST(TextReaderDamage, NumbersThatOverflow) {
  expect_error_at("99999999999999999999999. malloc(5) = 0x10\n", "input.txt:5", "bad index");
  expect_error_at("2. malloc(99999999999999999999999) = 0x10\n", "input.txt:5", "bad size");
  expect_error_at("2. malloc(5) = 0x1ffffffffffffffff\n", "input.txt:5", "bad resource id");
  expect_error_at("2. @1ffffffff malloc(5) = 0x10\n", "input.txt:5", "bad context mask");
  expect_error_at("2. [9999999:00:00.000] malloc(5) = 0x10\n", "input.txt:5", "too large");
  expect_error_at("2. free(0x10)\n\t0x1ffffffffffffffff\n", "input.txt:6", "backtrace line");
  expect_error_at(": /lib => 0x1ffffffffffffffff-0x2\n", "input.txt:5", "memory map");
  expect_error_at("@ 1ffffffff : name\n", "input.txt:5", "context registry");
  expect_error_at("<1ffffffffffffffff> : t (d)\n", "input.txt:5", "mask");
}

TEST(TextReaderDamage, MalformedRecordLines) {
  expect_error_at("2. free(0x10)\n\t0xgg\n", "input.txt:6", "backtrace line");
  expect_error_at("2. free(0x10)\n\tjunk\n", "input.txt:6", "backtrace line");
  expect_error_at("2. free(0x10)\n\t$novalue\n", "input.txt:6", "argument line");
  expect_error_at("<0> : t (d)\n", "input.txt:5", "mask");
  expect_error_at("<1> : type without description\n", "input.txt:5", "resource registry");
}

TEST(TextReaderDamage, CallLineBeforeTheHeader) {
  Outcome o;
  read_into("1. malloc(16) = 0x10\n" + std::string(kHeader), o);
  EXPECT_EQ(o.error, "input.txt:1: call record before the header line");
  EXPECT_EQ(o.sink.finish_count(), 1);
  EXPECT_TRUE(o.sink.lines().empty());
}

TEST(TextReaderDamage, NotATextTrace) {
  Outcome o;
  read_into("hello\n", o);
  EXPECT_NE(o.error.find("input.txt:1: not an sp-rtrace text trace"), std::string::npos);
  Outcome empty;
  read_into("", empty);
  EXPECT_NE(empty.error.find("input.txt:1: empty input"), std::string::npos);
  EXPECT_EQ(empty.sink.finish_count(), 1);
}

TEST(TextReaderDamage, BadHeaderNumbers) {
  Outcome o;
  read_into("version=2.0, arch=x86_64, pid=99999999999, \n", o);
  EXPECT_EQ(o.error, "input.txt:1: bad pid in the header");
}

// Random damage (bytes overwritten, lines cut, NULs): the reader either reads the result or
// reports an InputError, always calls finish() exactly once, and never crashes or hangs.
TEST(TextReaderDamage, RandomDamageIsReportedNotFatal) {
  RTRACE_NEEDS_FIXTURES();
  const std::vector<std::string> originals = {
      read_file(fixture("sp-rtrace/fd/fd.lcr.txt")),
      read_file(fixture("sp-rtrace/memory/memory.lc.txt")),
      read_file(fixture("sp-rtrace/upstream-tests/context.txt"))};
  std::mt19937 random(12345);
  const char replacements[] = {'\0', '\n', '\t', ' ', '(', ')', '<', '>', '@', '[',    ']',
                               ':',  '.',  '0',  'x', 'f', '9', '$', '=', '#', '\x01', '\xff'};
  int errors = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text = originals[round % originals.size()];
    const int edits = 1 + static_cast<int>(random() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = random() % text.size();
      switch (random() % 3) {
        case 0:
          text[at] = replacements[random() % sizeof(replacements)];
          break;
        case 1:
          text.erase(at, random() % 40);
          break;
        default:
          text.resize(at);
          break;
      }
      if (text.empty()) {
        text = "v";
      }
    }
    Outcome o;
    read_into(text, o);
    EXPECT_EQ(o.sink.finish_count(), 1) << round;
    errors += o.error.empty() ? 0 : 1;
  }
  EXPECT_GT(errors, 0);
}

TEST(TextReaderTruncation, RecordCutOffByTheEndIsAWarning) {
  Outcome o;
  read_into(
      std::string(kHeader) + "1. malloc(16) = 0x10\n\t0x401000\n\n2. malloc(8) = 0x20\n\t0x40", o);
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(o.warnings,
            "input.txt:6: warning: last line cut off by the end of the file\n"
            "input.txt:5: warning: the record starting here is cut off by the end of the file\n");
  EXPECT_EQ(o.sink.finish_count(), 1);
  EXPECT_EQ(o.sink.call_count(), 1U);
}

TEST(TextReaderTruncation, RecordWithoutItsEmptyLine) {
  Outcome o;
  read_into(std::string(kHeader) + "1. malloc(16) = 0x10\n\t0x401000\n", o);
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(o.warnings,
            "input.txt:2: warning: the record starting here is cut off by the end of the file\n");
  EXPECT_EQ(o.sink.call_count(), 0U);
  EXPECT_EQ(o.sink.finish_count(), 1);
}

TEST(TextReaderTruncation, CompressedTraceCutInAGroupKeepsTheGroupsBefore) {
  RTRACE_NEEDS_FIXTURES();
  const std::string text = read_file(fixture("sp-rtrace/memory/memory.lc.txt"));
  const std::size_t cut = text.find("21. [00:07:18.233] calloc");
  ASSERT_NE(cut, std::string::npos);
  Outcome o;
  read_into(text.substr(0, cut + 40), o);
  EXPECT_EQ(o.error, "");
  EXPECT_NE(o.warnings.find("cut off"), std::string::npos);
  EXPECT_EQ(o.sink.call_count(), 3U);  // 25, then 19 and 20
}

// A second header starts the next trace of a concatenation (`rtrace process` writes a stream of
// several processes so): read on, its calls its own process's.
TEST(TextReader, SecondHeaderStartsTheNextProcess) {
  Outcome o;
  read_into(std::string(kHeader) + "1. malloc(16) = 0x10\n\n" + kHeader + "2. free(0x10)\n\n", o);
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(o.warnings, "");
  EXPECT_EQ(o.sink.call_count(), 2U);
}

TEST(TextReader, WindowsLineEndings) {
  Outcome o;
  read_into("version=2.0, arch=x86_64, pid=1, \r\n1. malloc(16) = 0x10\r\n\t0x1\r\n\r\n", o);
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(calls_of(o.sink),
            std::vector<std::string>{
                "call #1 malloc kind=2 type=0 ctx=0x0 ts=0 size=16 id=0x10 bt=[0x1]"});
}

}  // namespace
}  // namespace rtrace::test

namespace rtrace::sprtrace_text {
namespace {

// What a backtrace line says after its address prints back the same, except that the protocol
// document's `in fn() ...` form comes out as the tools print it.
TEST(ResolvedFrame, PrintsBackWhatItRead) {
  for (const char* text : {
           "main() from /tmp/prog",
           "leaf() at memory.c:33",
           "from /usr/lib/libc.so.6",
           "in ??",
           "operator new(unsigned long) from /usr/lib/libstdc++.so.6",
           "std::map<int, std::pair<a, b> >::find(int const&) at /usr/include/c++/12/map:42",
           "inner(int) at a.c:3 (inlined by outer() at a.c:10) (inlined by main() at m.c:4)",
           "something nobody prints",
       }) {
    EXPECT_EQ(format_resolved_frame(parse_resolved_frame(text)), text);
  }
  EXPECT_EQ(format_resolved_frame(parse_resolved_frame("in spec() from /lib/x.so")),
            "spec() from /lib/x.so");
  EXPECT_EQ(format_resolved_frame(parse_resolved_frame("in spec() at x.c:5")), "spec() at x.c:5");
}

TEST(ResolvedFrame, InlinedCallsInnermostFirst) {
  const Symbol symbol = parse_resolved_frame(
      "inner(int) at a.c:3 (inlined by outer() at a.c:10) (inlined by "
      "main() at m.c:4)");
  EXPECT_EQ(symbol.where.function, "inner");
  EXPECT_EQ(symbol.where.parameters, "(int)");
  EXPECT_EQ(symbol.where.file, "a.c");
  EXPECT_EQ(symbol.where.line, 3U);
  ASSERT_EQ(symbol.inlined_by.size(), 2U);
  EXPECT_EQ(symbol.inlined_by[0].qualified_name(), "outer()");
  EXPECT_EQ(symbol.inlined_by[0].file, "a.c");
  EXPECT_EQ(symbol.inlined_by[0].line, 10U);
  EXPECT_EQ(symbol.inlined_by[1].qualified_name(), "main()");
  EXPECT_EQ(symbol.inlined_by[1].file, "m.c");
  EXPECT_EQ(symbol.inlined_by[1].line, 4U);
}

TEST(ResolvedFrame, StructuredFields) {
  const Symbol source = parse_resolved_frame("ns::Foo<int>::bar(int) const at /src/foo.cc:77");
  EXPECT_EQ(source.where.function, "ns::Foo<int>::bar");
  EXPECT_EQ(source.where.parameters, "(int) const");
  EXPECT_EQ(source.where.file, "/src/foo.cc");
  EXPECT_EQ(source.where.line, 77U);
  const Symbol module = parse_resolved_frame("operator()(int) from /lib/x.so");
  EXPECT_EQ(module.where.function, "operator()");
  EXPECT_EQ(module.where.parameters, "(int)");
  EXPECT_EQ(module.module, "/lib/x.so");
  EXPECT_TRUE(parse_resolved_frame("in ??").unknown());
}

}  // namespace
}  // namespace rtrace::sprtrace_text
