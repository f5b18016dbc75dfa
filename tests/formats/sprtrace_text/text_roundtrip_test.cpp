// Text in, text out: the original post-processor's re-runs without options, byte for byte.
#include <gtest/gtest.h>

#include <string>

#include "formats/sprtrace_text/text_test_support.h"
#include "support/test_paths.h"

namespace rtrace::test {
namespace {

std::string fixture_text(const std::string& relative) {
  return read_file(fixture("sp-rtrace/" + relative));
}

void expect_rerun(const std::string& input, const std::string& expected) {
  const std::string output = text_to_text(fixture_text(input));
  EXPECT_EQ(output, fixture_text(expected)) << input << " -> " << expected;
  // Reading our own output again changes nothing.
  EXPECT_EQ(text_to_text(output), output) << "second run over " << input;
}

TEST(TextToText, MemoryTrace) {
  RTRACE_NEEDS_FIXTURES();
  expect_rerun("memory/memory.txt", "memory/memory.txt.txt");
}

TEST(TextToText, CompressedTraceExpandsToOneRecordPerCall) {
  RTRACE_NEEDS_FIXTURES();
  expect_rerun("memory/memory.lc.txt", "memory/memory.lc.txt.txt");
}

TEST(TextToText, ResolvedFramesAreKept) {
  RTRACE_NEEDS_FIXTURES();
  expect_rerun("memory/memory.lcr.txt", "memory/memory.lcr.txt.txt");
}

TEST(TextToText, UpstreamSample) {
  RTRACE_NEEDS_FIXTURES();
  expect_rerun("upstream-tests/sample.txt", "upstream-tests/sample.txt.");
  expect_rerun("upstream-tests/sample.txt.", "upstream-tests/sample.txt..");
}

TEST(TextToText, UpstreamSampleWithArgumentsAndResolvedNames) {
  RTRACE_NEEDS_FIXTURES();
  expect_rerun("upstream-tests/sample.txt.r", "upstream-tests/sample.txt.r.");
}

TEST(TextToText, UpstreamCompressedSamples) {
  RTRACE_NEEDS_FIXTURES();
  expect_rerun("upstream-tests/sample.txt.lc", "upstream-tests/sample.txt.lc.");
  expect_rerun("upstream-tests/sample.txt.lcr", "upstream-tests/sample.txt.lcr.");
}

// The one documented deviation from the original: it lost the context registry names when reading
// text (printing `@ 0 : (null)`); we keep them. The expected text is the original's output with
// those lines replaced by the input's registry lines.
TEST(TextToText, UpstreamContextKeepsContextNames) {
  RTRACE_NEEDS_FIXTURES();
  std::string expected = fixture_text("upstream-tests/context.txt..");
  const std::string null_line = "@ 0 : (null)\n";
  for (const char* real : {"@ 1 : first context\n", "@ 2 : second context\n"}) {
    const std::size_t at = expected.find(null_line);
    ASSERT_NE(at, std::string::npos);
    expected.replace(at, null_line.size(), real);
  }
  ASSERT_EQ(expected.find(null_line), std::string::npos);
  const std::string output = text_to_text(fixture_text("upstream-tests/context.txt"));
  EXPECT_EQ(output, expected);
  EXPECT_EQ(text_to_text(output), output);
}

TEST(TextToText, OtherOriginalOutputsReadBackUnchanged) {
  RTRACE_NEEDS_FIXTURES();
  // Uncompressed outputs of the original without `##` lines round-trip exactly.
  for (const char* name : {"fd/fd.R2.txt", "shmsysv/shmsysv.R4.txt"}) {
    const std::string text = fixture_text(name);
    const std::string output = text_to_text(text);
    EXPECT_EQ(text_to_text(output), output) << name;
  }
}

}  // namespace
}  // namespace rtrace::test
