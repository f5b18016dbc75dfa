// Binary in, text out: the original post-processor's `-i trace.raw` output, byte for byte, except
// the header's origin= field, which names us.
#include <gtest/gtest.h>

#include <string>

#include "formats/sprtrace_binary/binary_reader.h"
#include "formats/sprtrace_binary/binary_test_support.h"
#include "formats/sprtrace_text/text_test_support.h"
#include "rtrace/version.h"
#include "support/recording_sink.h"
#include "support/test_paths.h"

namespace rtrace::test {
namespace {

std::string binary_to_text(const std::string& raw_fixture) {
  return write_text([&](TraceSink& sink) {
    CollectingDiagnostics diagnostics;
    const std::unique_ptr<InputStream> input = open_input(fixture(raw_fixture).string());
    read_sprtrace_binary(*input, sink, diagnostics);
    EXPECT_EQ(diagnostics.text(), "") << raw_fixture;
  });
}

// The original's output with its own name in origin= replaced by ours.
std::string expected_text(const std::string& text_fixture) {
  std::string text = read_file(fixture(text_fixture));
  const std::string theirs = "origin=sp-rtrace 1.8, \n";
  const std::size_t at = text.find(theirs);
  EXPECT_NE(at, std::string::npos) << text_fixture;
  if (at != std::string::npos) {
    text.replace(at, theirs.size(), std::string("origin=") + kTestOrigin + ", \n");
  }
  return text;
}

void expect_conversion(const std::string& raw, const std::string& txt) {
  const std::string output = binary_to_text(raw);
  EXPECT_EQ(output, expected_text(txt)) << raw;
  // And the text we wrote reads back to itself, apart from the `##` module lines, which text
  // input carries as comments after the memory maps (as the original does).
  const std::string again = text_to_text(output);
  EXPECT_EQ(text_to_text(again), again) << raw;
}

TEST(BinaryToText, Memory) {
  RTRACE_NEEDS_FIXTURES();
  expect_conversion("sp-rtrace/memory/memory.raw", "sp-rtrace/memory/memory.txt");
}

TEST(BinaryToText, FileDescriptorsWithArgumentsAndTypeTags) {
  RTRACE_NEEDS_FIXTURES();
  expect_conversion("sp-rtrace/fd/fd.raw", "sp-rtrace/fd/fd.txt");
}

TEST(BinaryToText, SysVSharedMemoryWithRefcountedType) {
  RTRACE_NEEDS_FIXTURES();
  expect_conversion("sp-rtrace/shmsysv/shmsysv.raw", "sp-rtrace/shmsysv/shmsysv.txt");
}

TEST(BinaryToText, ContextsAndContextMasks) {
  RTRACE_NEEDS_FIXTURES();
  expect_conversion("sp-rtrace/context/context.raw", "sp-rtrace/context/context.txt");
}

// Binary -> text -> text equals the original's own text -> text run.
TEST(BinaryToText, ThenTextToTextMatchesTheOriginalsRerun) {
  RTRACE_NEEDS_FIXTURES();
  std::string expected = read_file(fixture("sp-rtrace/memory/memory.txt.txt"));
  const std::string theirs = "origin=sp-rtrace 1.8, ";
  expected.replace(expected.find(theirs), theirs.size(),
                   std::string("origin=") + kTestOrigin + ", ");
  EXPECT_EQ(text_to_text(binary_to_text("sp-rtrace/memory/memory.raw")), expected);
}

// Strings of a binary trace that hold line breaks must not turn into records of the text: each
// byte below 0x20 but TAB prints as `\xHH` (and a comma of a header value as `\x2c`).
TEST(BinaryToText, LineBreaksInStringsCannotForgeRecords) {
  const std::string forged = "x\n1. malloc(1048576) = 0xdeadbeef\r\n";
  TraceBuilder t(2, 0);
  t.begin("PINF").dword(7).dword(0).dword(0).dword(4).string("prog, pid=1\n2. free(0x1)").end();
  t.begin("MMAP").pointer(0x1000).pointer(0x2000).string("/lib/a\n: /x => 0x0-0xffff").end();
  t.begin("CTXR").dword(1).string(forged).end();
  t.begin("RESR").dword(1).dword(0).string("memory\n@ 2 : y").string("bytes").end();
  t.begin("CALL")
      .dword(1)
      .dword(1)
      .dword(0)
      .dword(sprtrace::kCallAlloc)
      .string("malloc\n\t0x5")
      .dword(16)
      .pointer(0x5000)
      .end();
  t.begin("ARGS").dword(1).string("a\x01").string("v\n3. calloc(4) = 0x9").end();
  t.begin("BTRC").dword(1).pointer(0x1010).end();
  const std::string text = write_text([&](TraceSink& sink) {
    CollectingDiagnostics diagnostics;
    const std::unique_ptr<InputStream> input = input_from(t.bytes(), "forged.rtrace");
    read_sprtrace_binary(*input, sink, diagnostics);
    EXPECT_EQ(diagnostics.text(), "");
  });
  EXPECT_EQ(text,
            "version=2.0, arch=x86_64, timestamp=1970.1.1 00:00:00, "
            "process=prog\\x2c pid=1\\x0a2. free(0x1), pid=7, backtrace depth=4, "
            "origin=rtrace 0.1.0, \n"
            "@ 1 : x\\x0a1. malloc(1048576) = 0xdeadbeef\\x0d\\x0a\n"
            "<1> : memory\\x0a@ 2 : y (bytes)\n"
            ": /lib/a\\x0a: /x => 0x0-0xffff => 0x1000-0x2000\n"
            "1. @1 malloc\\x0a\t0x5(16) = 0x5000\n"
            "\t$a\\x01 = v\\x0a3. calloc(4) = 0x9\n"
            "\t0x1010\n"
            "\n");
  // Read back, the text holds exactly the records the binary trace did.
  RecordingSink records;
  CollectingDiagnostics diagnostics;
  const std::unique_ptr<InputStream> input = input_from(text);
  read_sprtrace_text(*input, records, diagnostics);
  EXPECT_EQ(diagnostics.text(), "");
  EXPECT_EQ(records.call_count(), 1U);
  std::size_t contexts = 0;
  std::size_t mappings = 0;
  for (const std::string& line : records.lines()) {
    contexts += line.starts_with("context ") ? 1 : 0;
    mappings += line.starts_with("mapping ") ? 1 : 0;
  }
  EXPECT_EQ(contexts, 1U) << records.text();
  EXPECT_EQ(mappings, 1U) << records.text();
}

// A memory map recorded after calls (a library loaded later) prints with the other maps before
// the calls, as the original prints every map, when `rtrace process` reads a file (twice: first
// the late maps, then everything); from a pipe it prints where it arrived.
TEST(BinaryToText, LateMapsPrintBeforeTheCallsFromAFile) {
  TraceBuilder t(2, 0);
  t.begin("PINF").dword(7).dword(0).dword(0).dword(1).string("prog").end();
  t.begin("MMAP").pointer(0x1000).pointer(0x2000).string("/bin/prog").end();
  const auto call = [&](std::uint32_t kind, std::string_view name, std::uint64_t id) {
    t.begin("CALL").dword(1).dword(0).dword(0).dword(kind).string(name).dword(8).pointer(id).end();
    t.begin("BTRC").dword(1).pointer(0x1010).end();
  };
  call(sprtrace::kCallAlloc, "malloc", 0x5000);
  t.begin("MMAP").pointer(0x7000).pointer(0x8000).string("/lib/late.so").end();
  call(sprtrace::kCallFree, "free", 0x5000);
  t.begin("MMAP").pointer(0x9000).pointer(0xa000).string("/lib/later.so").end();
  const std::string header =
      "version=2.0, arch=x86_64, timestamp=1970.1.1 00:00:00, process=prog, pid=7, "
      "backtrace depth=1, origin=" +
      std::string(kOrigin) + ", \n";
  const std::string first = "1. malloc(8) = 0x5000\n\t0x1010\n\n";
  const std::string second = "2. free(0x5000)\n\t0x1010\n\n";
  const std::string maps[] = {": /bin/prog => 0x1000-0x2000\n", ": /lib/late.so => 0x7000-0x8000\n",
                              ": /lib/later.so => 0x9000-0xa000\n"};
  const ScratchDir dir;
  const std::filesystem::path file = dir / "late.rtrace";
  write_file(file, t.bytes());
  const std::string rtrace = "'" + (build_dir() / "bin" / "rtrace").string() + "' process";
  const auto from_file = run_command(rtrace + " -i '" + file.string() + "'");
  EXPECT_EQ(from_file.err, "");
  EXPECT_EQ(from_file.out, header + maps[0] + maps[1] + maps[2] + first + second);
  const auto from_pipe = run_command("cat '" + file.string() + "' | " + rtrace);
  EXPECT_EQ(from_pipe.err, "");
  EXPECT_EQ(from_pipe.out, header + maps[0] + first + maps[1] + second + maps[2]);
}

}  // namespace
}  // namespace rtrace::test
