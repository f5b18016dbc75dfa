// Binary in, text out: the original post-processor's `-i trace.raw` output, byte for byte, except
// the header's origin= field, which names us.
#include <gtest/gtest.h>

#include <string>

#include "formats/sprtrace_binary/binary_reader.h"
#include "formats/sprtrace_text/text_test_support.h"
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

}  // namespace
}  // namespace rtrace::test
