// Reading the sp-rtrace binary protocol: the original tracer's traces, hand-built traces of older
// protocol versions, and what the reader does with input it cannot trust.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "binary_test_support.h"
#include "support/test_paths.h"

namespace rtrace::test {
namespace {

// Keeps copies of what the post-processor's text output shows, to compare with the fixtures.
class TextLikeSink final : public ForwardingSink {
 public:
  TextLikeSink() : ForwardingSink(recording_) {}

  void resource_type(const ResourceType& type) override {
    types_.push_back(type);
    ForwardingSink::resource_type(type);
  }
  void mapping(const Mapping& mapping) override {
    lines_ += fmt::format(": {} => {:#x}-{:#x}\n", mapping.path, mapping.from, mapping.to);
    ForwardingSink::mapping(mapping);
  }
  void call(const CallRecord& r) override {
    calls_.push_back(r.call);
    std::string& out = call_text_;
    out += fmt::format("{}. ", r.call.index);
    if (r.call.context != 0) {
      out += fmt::format("@{:x} ", r.call.context);
    }
    if (r.call.timestamp_ns != 0) {
      const std::uint64_t ms = r.call.timestamp_ns / 1'000'000 % 86400000;
      out += fmt::format("[{:02}:{:02}:{:02}.{:03}] ", ms / 3600000, ms / 60000 % 60,
                         ms / 1000 % 60, ms % 1000);
    }
    out += r.function;
    if (types_.size() > 1) {
      for (const ResourceType& t : types_) {
        if (t.id == r.call.resource_type) {
          out += "<" + t.type + ">";
        }
      }
    }
    out += r.call.kind == CallKind::Alloc
               ? fmt::format("({}) = {:#x}\n", r.call.size, r.call.resource_id)
               : fmt::format("({:#x})\n", r.call.resource_id);
    for (const Argument& a : r.arguments) {
      out += fmt::format("\t${} = {}\n", a.name, a.value);
    }
    for (const Frame& frame : r.frames) {
      out += fmt::format("\t{:#x}\n", frame.address);
    }
    out += "\n";
    ForwardingSink::call(r);
  }

  const RecordingSink& recording() const { return recording_; }
  const std::string& mapping_lines() const { return lines_; }
  const std::string& call_text() const { return call_text_; }
  const std::vector<Call>& calls() const { return calls_; }

 private:
  RecordingSink recording_;
  std::vector<ResourceType> types_;
  std::vector<Call> calls_;
  std::string lines_;
  std::string call_text_;
};

// The part of the original's text output from the first call record on.
std::string calls_section(const std::string& text) {
  std::size_t at = 0;
  while (at < text.size()) {
    if (text[at] >= '1' && text[at] <= '9') {
      return text.substr(at);
    }
    at = text.find('\n', at);
    if (at == std::string::npos) {
      break;
    }
    ++at;
  }
  return {};
}

std::string mapping_section(const std::string& text) {
  std::string lines;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end - at + 1);
    if (line.starts_with(": ")) {
      lines += line;
    }
    if (end == std::string::npos) {
      break;
    }
    at = end + 1;
  }
  return lines;
}

class FixtureTest : public testing::TestWithParam<const char*> {};

// Every call, argument and frame the original post-processor printed for the raw trace.
TEST_P(FixtureTest, CallsAndMappingsMatchTheOriginalTextOutput) {
  RTRACE_NEEDS_FIXTURES();
  const std::string name = GetParam();
  TextLikeSink sink;
  InputStream input(std::make_unique<MemorySource>(read_fixture(name + "/" + name + ".raw")), name);
  CollectingDiagnostics diagnostics;
  read_sprtrace_binary(input, sink, diagnostics);
  const std::string expected = read_fixture(name + "/" + name + ".txt");

  EXPECT_EQ(diagnostics.text(), "");
  EXPECT_EQ(sink.recording().finish_count(), 1);
  EXPECT_EQ(sink.call_text(), calls_section(expected));
  EXPECT_EQ(sink.mapping_lines(), mapping_section(expected));
}

INSTANTIATE_TEST_SUITE_P(SpRtrace, FixtureTest,
                         testing::Values("memory", "fd", "shmsysv", "context"));

TEST(BinaryReader, MemoryTraceRecordsInOrder) {
  RTRACE_NEEDS_FIXTURES();
  const auto result = read_bytes(read_fixture("memory/memory.raw"));
  ASSERT_FALSE(result->failed) << result->error;
  const auto& lines = result->sink.lines();
  ASSERT_GT(lines.size(), 14U);
  EXPECT_EQ(lines[0], "handshake 2.0 arch=x86_64 LE ptr=8 origin= filters=");
  EXPECT_EQ(lines[1], "output path=/tmp/ref/runs/memory options=");
  EXPECT_EQ(lines[2], "process pid=778 name=./memory start=1795259349.904066 text= depth=10");
  EXPECT_EQ(lines[3], "module [0] main (1.0)");
  EXPECT_EQ(lines[4], "mapping 0x401000-0x402000 /tmp/ref/progs/memory");
  EXPECT_EQ(lines[11], "mapping 0xffffffffff600000-0xffffffffff601000 [vsyscall]");
  EXPECT_EQ(lines[12], "module [1] memory (1.0)");
  EXPECT_EQ(lines[13], "resource 1 flags=0x0 memory (memory allocation in bytes)");
  // 1. [00:07:18.233] malloc(16) = 0x15dcf2a0 with 8 frames; then its free.
  EXPECT_EQ(lines[14],
            "call #1 malloc kind=2 type=1 ctx=0x0 ts=438233 size=16 id=0x15dcf2a0 "
            "bt=[0x40126e,0x4013c0,0x4013cc,0x4013d8,0x4013f2,0x7f756905424a,0x7f7569054305,"
            "0x4010d1]");
  EXPECT_EQ(lines[15], "call #2 free kind=1 type=1 ctx=0x0 ts=438233 size=0 id=0x15dcf2a0");
  EXPECT_EQ(result->sink.call_count(), 44U);
  EXPECT_EQ(result->warnings, "");
}

TEST(BinaryReader, FdTraceHasArguments) {
  RTRACE_NEEDS_FIXTURES();
  const auto result = read_bytes(read_fixture("fd/fd.raw"));
  ASSERT_FALSE(result->failed) << result->error;
  EXPECT_NE(result->sink.text().find("call #1 open kind=2 type=1 ctx=0x0 ts=463343 size=1 id=0x4 "
                                     "$path=/tmp/sp_rtrace_fd_test.txt $flags=0x241 bt=["),
            std::string::npos)
      << result->sink.text();
}

TEST(BinaryReader, ContextTraceHasContextsAndMasks) {
  RTRACE_NEEDS_FIXTURES();
  const auto result = read_bytes(read_fixture("context/context.raw"));
  ASSERT_FALSE(result->failed) << result->error;
  const std::string text = result->sink.text();
  EXPECT_NE(text.find("context 0x1 alpha\ncontext 0x2 beta\ncontext 0x4 gamma\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("call #5 malloc kind=2 type=1 ctx=0x1 ts="), std::string::npos);
}

// Small windows make every packet straddle buffer refills, also while a call is pending.
TEST(BinaryReader, ResultDoesNotDependOnHowTheInputArrives) {
  RTRACE_NEEDS_FIXTURES();
  for (const char* name : {"memory/memory.raw", "fd/fd.raw"}) {
    const std::string bytes = read_fixture(name);
    const auto whole = read_bytes(bytes);
    for (const std::size_t piece : {1, 3, 7, 64}) {
      const auto pieces = read_bytes(bytes, piece);
      EXPECT_EQ(pieces->sink.text(), whole->sink.text()) << name << " piece " << piece;
    }
  }
}

// Protocol 1.0: [size][type] headers with the size counting the type field, no backtrace
// depth, no resource flags.
TEST(BinaryReader, ReadsProtocol10) {
  TraceBuilder t(1, 0);
  t.begin("PINF").dword(42).dword(1000).dword(5).string("./old").end();
  t.begin("MINF").dword(0).dword(0x00010000).string("main").end();
  t.begin("RESR").dword(1).string("memory").string("bytes").end();
  // 1.x CALL: [timestamp][resource type][context][kind][name][id][size], as the document says.
  t.begin("CALL")
      .dword(1234)
      .dword(1)
      .dword(0)
      .dword(2)
      .string("malloc")
      .pointer(0xabc)
      .dword(10)
      .end();
  t.begin("BTRC").dword(2).pointer(0x401000).pointer(0x402000).end();
  t.begin("CALL")
      .dword(1235)
      .dword(1)
      .dword(0)
      .dword(1)
      .string("free")
      .pointer(0xabc)
      .dword(0)
      .end();
  t.begin("BTRC").dword(0).end();
  const auto result = read_bytes(t.bytes());
  ASSERT_FALSE(result->failed) << result->error;
  EXPECT_EQ(result->sink.text(),
            "handshake 1.0 arch=x86_64 LE ptr=8 origin= filters=\n"
            "process pid=42 name=./old start=1000.000005 text= depth=none\n"
            "module [0] main (1.0)\n"
            "resource 1 flags=0x0 memory (bytes)\n"
            "call #1 malloc kind=2 type=1 ctx=0x0 ts=1234 size=10 id=0xabc bt=[0x401000,0x402000]\n"
            "call #2 free kind=1 type=1 ctx=0x0 ts=1235 size=0 id=0xabc");
  EXPECT_EQ(result->warnings, "");
}

// rtrace's extensions (docs/protocol-extensions.md): RCMD completes the process of the PINF just
// before it; REND ends a trace. Big-endian, as any other packet.
TEST(BinaryReader, ReadsTheCommandLineAndTheTraceEnd) {
  TraceBuilder t(2, 0, /*big_endian=*/true);
  t.begin("PINF").dword(42).dword(1000).dword(5).dword(7).string("./prog").end();
  t.begin("RCMD").dword(42).dword(1).dword(3).string("./prog").string("a b").string("").end();
  std::string sizes;
  for (const std::uint64_t v : {std::uint64_t{8} << 20, std::uint64_t{4096}}) {
    for (int shift = 56; shift >= 0; shift -= 8) {
      sizes += static_cast<char>((v >> shift) & 0xFF);
    }
  }
  t.begin("REND").dword(42).dword(4).dword(11).dword(2000).dword(999999).raw(sizes).end();
  const auto result = read_bytes(t.bytes(), 3);
  EXPECT_EQ(result->warnings, "");
  EXPECT_EQ(result->sink.text(),
            "handshake 2.0 arch=x86_64 BE ptr=8 origin= filters=\n"
            "process pid=42 name=./prog start=1000.000005 text= depth=7 argv=[./prog|a b|] cut\n"
            "end pid=42 reason=signal signal=11 time=2000.999999 peak=8388608 rss=4096");
}

TEST(BinaryReader, CommandLineOfAnotherProcessOrWithTooManyArgumentsIsRefused) {
  TraceBuilder t(2, 0);
  t.begin("PINF").dword(42).dword(1000).dword(5).dword(7).string("./prog").end();
  t.begin("RCMD").dword(43).dword(0).dword(1).string("./other").end();
  const auto stray = read_bytes(t.bytes());
  EXPECT_EQ(stray->warnings,
            "trace:48: warning: RCMD packet of process 43 not right after its PINF packet; "
            "ignored\n");
  EXPECT_EQ(stray->sink.text(),
            "handshake 2.0 arch=x86_64 LE ptr=8 origin= filters=\n"
            "process pid=42 name=./prog start=1000.000005 text= depth=7");
  TraceBuilder hostile(2, 0);
  hostile.begin("PINF").dword(42).dword(1000).dword(5).dword(7).string("./prog").end();
  hostile.begin("RCMD").dword(42).dword(0).dword(0xFFFFFFFF).end();
  const auto damaged = read_bytes(hostile.bytes());
  EXPECT_TRUE(damaged->failed);
  EXPECT_EQ(damaged->error, "trace:48: argument count 4294967295 larger than the packet holds");
  // What came before the damage is delivered.
  EXPECT_EQ(damaged->sink.lines().size(), 2U) << damaged->sink.text();
}

TEST(BinaryReader, ReadsProtocol12WithDepthButNoResourceFlags) {
  TraceBuilder t(1, 2);
  t.begin("PINF").dword(42).dword(1000).dword(5).dword(7).string("./old").end();
  t.begin("RESR").dword(1).string("fd").string("file descriptor").end();
  const auto result = read_bytes(t.bytes());
  EXPECT_EQ(result->sink.text(),
            "handshake 1.2 arch=x86_64 LE ptr=8 origin= filters=\n"
            "process pid=42 name=./old start=1000.000005 text= depth=7\n"
            "resource 1 flags=0x0 fd (file descriptor)");
}

// The text protocol names a resource type by the mask 1 << (id - 1): a type outside ids 1 to 64
// could not be written back, and is left out with a warning.
TEST(BinaryReader, ResourceTypeOutsideTheMasksIsLeftOut) {
  TraceBuilder t(1, 2);
  t.begin("PINF").dword(42).dword(1000).dword(5).dword(7).string("./old").end();
  t.begin("RESR").dword(0).string("fd").string("file descriptor").end();
  t.begin("RESR").dword(65).string("fp").string("file pointer").end();
  t.begin("RESR").dword(64).string("last").string("the highest mask").end();
  const auto result = read_bytes(t.bytes());
  EXPECT_EQ(result->sink.text(),
            "handshake 1.2 arch=x86_64 LE ptr=8 origin= filters=\n"
            "process pid=42 name=./old start=1000.000005 text= depth=7\n"
            "resource 64 flags=0x0 last (the highest mask)");
  EXPECT_EQ(result->warnings,
            "trace:48: warning: resource type id 0 out of range (1 to 64); the type is left out\n"
            "trace:84: warning: resource type id 65 out of range (1 to 64); the type is left "
            "out\n");
}

TEST(BinaryReader, ReadsProtocol13WithResourceFlags) {
  TraceBuilder t(1, 3, /*big_endian=*/true, /*pointer_size=*/4);
  t.begin("RESR").dword(1).dword(1).string("segment").string("shared memory").end();
  t.begin("CALL")
      .dword(99)
      .dword(1)
      .dword(3)
      .dword(2)
      .string("shmget")
      .pointer(0xa)
      .dword(4096)
      .end();
  t.begin("ARGS").dword(1).string("key").string("0x1234").end();
  t.begin("BTRC").dword(1).pointer(0x8048000).end();
  const auto result = read_bytes(t.bytes());
  EXPECT_EQ(result->sink.text(),
            "handshake 1.3 arch=x86_64 BE ptr=4 origin= filters=\n"
            "resource 1 flags=0x1 segment (shared memory)\n"
            "call #1 shmget kind=2 type=1 ctx=0x3 ts=99 size=4096 id=0xa $key=0x1234 "
            "bt=[0x8048000]");
}

TEST(BinaryReader, ReadsEveryPacketTypeBigEndianWith4BytePointers) {
  TraceBuilder t(2, 0, /*big_endian=*/true, /*pointer_size=*/4);
  t.begin("OCFG").string("/out").string("-lc").end();
  t.begin("MMAP").pointer(0x8048000).pointer(0x8049000).string("/bin/prog").end();
  t.begin("CTXR").dword(2).string("beta").end();
  t.begin("NLIB").string("*").end();
  t.begin("CALL")
      .dword(1)
      .dword(2)
      .dword(5)
      .dword(3)
      .string("strdup")
      .dword(4)
      .pointer(0xfff0)
      .end();
  t.begin("HINF").pointer(0x1000).pointer(0x9000);
  for (std::uint32_t i = 1; i <= 10; ++i) {
    t.dword(i);
  }
  t.end();
  t.begin("FILE").string("pagemap").string("1-pagemap-0").end();
  const auto result = read_bytes(t.bytes());
  EXPECT_EQ(result->sink.text(),
            "handshake 2.0 arch=x86_64 BE ptr=4 origin= filters=\n"
            "output path=/out options=-lc\n"
            "mapping 0x8048000-0x8049000 /bin/prog\n"
            "context 0x2 beta\n"
            "call #1 strdup kind=0 type=1 ctx=0x2 ts=5 size=4 id=0xfff0\n"
            "heap 0x1000 0x9000 0x0 0x0 1 2 3 4 5 6 7 8 9 10\n"
            "attachment pagemap 1-pagemap-0");
  EXPECT_EQ(result->warnings, "");
}

// The original tracer on a big-endian machine stores "CALL" as the bytes "LLAC"; the spelling
// "CALL" is read as well.
TEST(BinaryReader, ReadsBigEndianPacketTypesEitherWay) {
  for (const bool forward : {false, true}) {
    TraceBuilder t(2, 0, /*big_endian=*/true);
    if (forward) {
      t.spell_types_forward();
    }
    t.begin("CTXR").dword(1).string("alpha").end();
    const auto result = read_bytes(t.bytes());
    EXPECT_EQ(t.bytes().substr(16, 4), forward ? "CTXR" : "RXTC");
    EXPECT_EQ(result->sink.text(),
              "handshake 2.0 arch=x86_64 BE ptr=8 origin= filters=\ncontext 0x1 alpha");
    EXPECT_EQ(result->warnings, "");
  }
}

// The 2.0 tracer stores heap bottom and top as dwords even with 8-byte pointers.
TEST(BinaryReader, ReadsHeapInfoWithNarrowHeapBounds) {
  TraceBuilder t(2, 0);
  t.begin("HINF").dword(0x1000).dword(0x9000);
  for (std::uint32_t i = 1; i <= 10; ++i) {
    t.dword(i);
  }
  t.end();
  const auto result = read_bytes(t.bytes());
  EXPECT_NE(result->sink.text().find("heap 0x1000 0x9000 0x0 0x0 1 2 3 4 5 6 7 8 9 10"),
            std::string::npos);
}

// The length-0 NULL string of older tracers is followed by two padding bytes.
TEST(BinaryReader, ReadsNullStrings) {
  TraceBuilder t(2, 0);
  t.begin("OCFG").raw(std::string(4, '\0')).raw(std::string(4, '\0')).end();
  t.begin("CTXR")
      .dword(1)
      .raw(std::string("\x03\x00"
                       "abc\0\0\0",
                       8))
      .end();
  const auto result = read_bytes(t.bytes());
  EXPECT_EQ(result->sink.text(),
            "handshake 2.0 arch=x86_64 LE ptr=8 origin= filters=\n"
            "output path= options=\n"
            "context 0x1 abc");
}

TEST(BinaryReader, SkipsUnknownPacketTypesWithOneWarningPerType) {
  TraceBuilder t(2, 0);
  t.begin("XTRA").dword(1).end();
  t.begin("CALL").dword(1).dword(0).dword(5).dword(2).string("malloc").dword(4).pointer(0x10).end();
  t.begin("BTRC").dword(0).end();
  t.begin("XTRA").dword(2).end();
  const auto result = read_bytes(t.bytes());
  EXPECT_EQ(result->warnings, "trace:16: warning: unknown packet type 0x41525458 (XTRA) skipped\n");
  EXPECT_EQ(result->sink.call_count(), 1U);
  EXPECT_FALSE(result->failed);
}

// RSIZ (docs/protocol-extensions.md): the size of the CALL before it, which its 4-byte field
// holds as 4294967295; big-endian, as any other packet.
TEST(BinaryReader, TakesTheSizeOfAnRsizPacket) {
  TraceBuilder t(2, 0, /*big_endian=*/true);
  t.begin("CALL").dword(1).dword(0).dword(5).dword(2).string("malloc").dword(0xFFFFFFFF);
  t.pointer(0x10).end();
  t.begin("RSIZ").qword(5000000000).end();
  t.begin("BTRC").dword(1).pointer(0x401000).end();
  t.begin("CALL").dword(1).dword(0).dword(6).dword(2).string("malloc").dword(0xFFFFFFFF);
  t.pointer(0x20).end();
  t.begin("BTRC").dword(0).end();
  const auto result = read_bytes(t.bytes());
  EXPECT_EQ(result->warnings, "");
  EXPECT_EQ(result->sink.text(),
            "handshake 2.0 arch=x86_64 BE ptr=8 origin= filters=\n"
            "call #1 malloc kind=2 type=1 ctx=0x0 ts=5 size=5000000000 id=0x10 bt=[0x401000]\n"
            "call #2 malloc kind=2 type=1 ctx=0x0 ts=6 size=4294967295 id=0x20");
}

TEST(BinaryReader, RefusesAnRsizPacketThatDoesNotExtendItsCall) {
  for (const auto& [call_size, size] :
       {std::pair<std::uint32_t, std::uint64_t>{100, 5000000000}, {0xFFFFFFFF, 0xFFFFFFFF}}) {
    TraceBuilder t(2, 0);
    t.begin("CALL").dword(1).dword(0).dword(5).dword(2).string("malloc").dword(call_size);
    t.pointer(0x10).end();
    t.begin("RSIZ").qword(size).end();
    const auto result = read_bytes(t.bytes());
    EXPECT_TRUE(result->failed);
    EXPECT_EQ(result->error, fmt::format("trace:60: RSIZ packet's size {} for a CALL packet of "
                                         "size {}",
                                         size, call_size));
  }
}

// Every other reader refuses it (the compact reader with an error): no writer may pass it on.
// The end stays: without it the trace would look killed.
TEST(BinaryReader, LeavesOutATraceEndTimeWhoseMicrosecondsAreAWholeSecond) {
  TraceBuilder t(2, 0);
  t.begin("PINF").dword(42).dword(1000).dword(5).dword(7).string("./prog").end();
  t.begin("REND").dword(42).dword(1).dword(0).dword(2000).dword(1000000).raw(std::string(16, '\0'));
  t.end();
  const auto result = read_bytes(t.bytes());
  EXPECT_EQ(result->warnings,
            "trace:48: warning: REND packet's wall-clock microseconds 1000000 out of range; time "
            "left out\n");
  EXPECT_EQ(result->sink.text(),
            "handshake 2.0 arch=x86_64 LE ptr=8 origin= filters=\n"
            "process pid=42 name=./prog start=1000.000005 text= depth=7\n"
            "end pid=42 reason=exit signal=0 time=0.000000 peak=0 rss=0");
}

TEST(BinaryReader, IgnoresBacktraceWithoutCall) {
  TraceBuilder t(2, 0);
  t.begin("BTRC").dword(1).pointer(0x10).end();
  const auto result = read_bytes(t.bytes());
  EXPECT_EQ(result->warnings,
            "trace:16: warning: BTRC packet without a CALL packet before it; ignored\n");
  EXPECT_EQ(result->sink.call_count(), 0U);
}

// A second handshake starts the next trace of a concatenation (`rtrace process` writes a stream
// of several processes so): its calls are read on, as its own process's.
TEST(BinaryReader, ReadsOnIntoASecondHandshakesTrace) {
  RTRACE_NEEDS_FIXTURES();
  const std::string first = read_fixture("memory/memory.raw");
  const std::string second = read_fixture("fd/fd.raw");
  const std::size_t second_calls = read_bytes(second)->sink.call_count();
  ASSERT_GT(second_calls, 0U);
  const auto result = read_bytes(first + second);
  EXPECT_FALSE(result->failed);
  EXPECT_EQ(result->sink.call_count(), 44U + second_calls);
  EXPECT_EQ(result->sink.finish_count(), 1);
  EXPECT_EQ(result->warnings, "");
}

// Before 2.0 the size comes first and may begin with 0xF0; only an unknown type after it makes
// it a handshake.
TEST(BinaryReader, ReadsOnIntoASecondHandshakesTraceInA1xTrace) {
  TraceBuilder first(1, 2);
  first.begin("CTXR").dword(1).string(std::string(230, 'x')).end();  // size 0xF0
  TraceBuilder second(1, 2);
  second.begin("CTXR").dword(2).string("b").end();
  const auto result = read_bytes(first.bytes() + second.bytes());
  EXPECT_EQ(static_cast<unsigned char>(first.bytes()[16]), 0xF0);
  EXPECT_EQ(result->sink.lines().size(), 3U)
      << fmt::format("{}", fmt::join(result->sink.lines(), "\n"));
  EXPECT_EQ(result->warnings, "");
}

TEST(BinaryReader, Rejects1xPacketSizesSmallerThanTheTypeField) {
  std::string bytes = TraceBuilder(1, 4).bytes();
  bytes += std::string("\x02\x00\x00\x00", 4) + "CTXR" + std::string(8, '\0');
  EXPECT_EQ(read_bytes(bytes)->error, "trace:16: impossible packet size 2");
}

TEST(BinaryReader, RejectsUnknownHandshakeVersions) {
  for (const auto& [major, minor] : {std::pair{3, 0}, std::pair{2, 1}, std::pair{0, 9}}) {
    TraceBuilder t(static_cast<std::uint8_t>(major), static_cast<std::uint8_t>(minor));
    const auto result = read_bytes(t.bytes());
    EXPECT_TRUE(result->failed);
    EXPECT_EQ(result->error_position, 0U);
    EXPECT_EQ(result->error,
              fmt::format("trace:0: unsupported protocol version {}.{}", major, minor));
    EXPECT_EQ(result->sink.finish_count(), 1);
  }
}

TEST(BinaryReader, RejectsBadHandshakeFields) {
  std::string bytes = TraceBuilder(2, 0).bytes();
  bytes[11] = 3;  // byte order
  EXPECT_EQ(read_bytes(bytes)->error, "trace:0: unknown byte order 3");
  bytes = TraceBuilder(2, 0).bytes();
  bytes[12] = 16;  // pointer size
  EXPECT_EQ(read_bytes(bytes)->error, "trace:0: unsupported pointer size 16");
  bytes = TraceBuilder(2, 0).bytes();
  bytes[4] = 40;  // architecture longer than the handshake
  EXPECT_EQ(read_bytes(bytes)->error, "trace:0: handshake too short for its fields");
}

TEST(BinaryReader, RejectsImpossiblePacketSizes) {
  TraceBuilder t(2, 0);
  t.begin("CTXR").dword(1).string("a").end();
  std::string bytes = t.bytes();
  bytes += std::string("CALL") + std::string("\xff\xff\xff\x7f", 4) + std::string(64, '\0');
  const auto result = read_bytes(bytes);
  EXPECT_TRUE(result->failed);
  EXPECT_EQ(result->error, "trace:32: impossible packet size 2147483647");
  EXPECT_EQ(result->sink.text(),
            "handshake 2.0 arch=x86_64 LE ptr=8 origin= filters=\ncontext 0x1 a");
  EXPECT_EQ(result->sink.finish_count(), 1);
}

TEST(BinaryReader, RejectsPacketsTooShortForTheirFields) {
  TraceBuilder t(2, 0);
  t.begin("CALL").dword(1).dword(0).dword(5).dword(2).string("malloc").dword(4).pointer(0x10).end();
  t.begin("BTRC").dword(0).end();
  t.begin("MMAP").pointer(0x1000).end();
  const auto result = read_bytes(t.bytes());
  EXPECT_TRUE(result->failed);
  EXPECT_EQ(result->error, "trace:72: packet too short for a pointer");
  EXPECT_EQ(result->sink.call_count(), 1U);
}

TEST(BinaryReader, RejectsStringsRunningPastThePacket) {
  TraceBuilder t(2, 0);
  t.begin("CTXR")
      .dword(1)
      .raw(std::string("\x40\x00"
                       "ab",
                       4))
      .end();
  const auto result = read_bytes(t.bytes());
  EXPECT_EQ(result->error, "trace:16: packet too short for a string");
}

// The call before a damaged ARGS or BTRC packet is complete: it is delivered, without the damage.
TEST(BinaryReader, RejectsCountsLargerThanThePacket) {
  TraceBuilder frames(2, 0);
  frames.begin("CALL")
      .dword(1)
      .dword(0)
      .dword(5)
      .dword(2)
      .string("malloc")
      .dword(4)
      .pointer(0x10)
      .end();
  frames.begin("BTRC").dword(3).pointer(0x1).pointer(0x2).end();
  auto result = read_bytes(frames.bytes());
  EXPECT_EQ(result->error, "trace:60: frame count 3 larger than the packet holds");
  EXPECT_EQ(result->sink.lines().back(),
            "call #1 malloc kind=2 type=1 ctx=0x0 ts=5 size=4 id=0x10");

  TraceBuilder arguments(2, 0);
  arguments.begin("CALL")
      .dword(1)
      .dword(0)
      .dword(5)
      .dword(2)
      .string("open")
      .dword(1)
      .pointer(0x3)
      .end();
  arguments.begin("ARGS").dword(1000).string("a").string("b").end();
  result = read_bytes(arguments.bytes());
  EXPECT_EQ(result->error, "trace:60: argument count 1000 larger than the packet holds");
  EXPECT_EQ(result->sink.lines().back(), "call #1 open kind=2 type=1 ctx=0x0 ts=5 size=1 id=0x3");

  TraceBuilder half(2, 0);
  half.begin("CALL").dword(1).dword(0).dword(5).dword(2).string("open").dword(1).pointer(0x3).end();
  half.begin("ARGS")
      .dword(2)
      .string("a")
      .string("b")
      .string("c")
      .raw(std::string_view("\x09\x00", 2))
      .end();
  result = read_bytes(half.bytes());
  EXPECT_EQ(result->error, "trace:60: packet too short for a string");
  EXPECT_EQ(result->sink.lines().back(), "call #1 open kind=2 type=1 ctx=0x0 ts=5 size=1 id=0x3");
}

TEST(BinaryReader, WarnsAboutATruncatedFinalPacketAndKeepsThePendingCall) {
  TraceBuilder t(2, 0);
  t.begin("CALL").dword(1).dword(0).dword(5).dword(2).string("malloc").dword(4).pointer(0x10).end();
  t.begin("BTRC").dword(2).pointer(0x1).pointer(0x2).end();
  const std::string bytes = t.bytes().substr(0, t.bytes().size() - 3);
  const auto result = read_bytes(bytes);
  EXPECT_FALSE(result->failed);
  EXPECT_EQ(result->warnings, "trace:60: warning: truncated packet (25 of 28 bytes); ignored\n");
  EXPECT_EQ(result->sink.lines().back(),
            "call #1 malloc kind=2 type=1 ctx=0x0 ts=5 size=4 id=0x10");
  EXPECT_EQ(result->sink.finish_count(), 1);
}

}  // namespace
}  // namespace rtrace::test
