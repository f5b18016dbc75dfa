// A text trace of any size is read in memory bounded by its longest line, from a file (mapped:
// the pages left behind are given back) and from a pipe (the buffer is reused, not grown).
#include <gtest/gtest.h>

#include <string>

#include "support/peak_memory.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

using test::ScratchDir;

// A header, then `megabytes` of comment lines of 1000 bytes.
std::string comment_trace_command(unsigned megabytes) {
  return "{ echo 'version=2.0, arch=x86_64, timestamp=2026.11.21 11:09:09, process=./text, "
         "pid=7'; yes \"# $(head -c 997 /dev/zero | tr '\\0' x)\" | head -c " +
         std::to_string(megabytes) + "M; }";
}

// Reading 240 MB took 250 MB from a file (its pages stayed resident) and more from a pipe (the
// buffer doubled as long as the input went on); now about 20 MB either way.
constexpr unsigned kTraceMegabytes = 240;
constexpr std::uint64_t kMostKib = 80 * 1024;

TEST(TextMemoryCli, AFileIsReadInAWindowOfMemory) {
  const ScratchDir dir;
  const std::string trace = test::quoted(dir / "comments.txt");
  ASSERT_EQ(test::run_command(comment_trace_command(kTraceMegabytes) + " > " + trace).status, 0);
  const test::MeasuredRun run = test::run_measuring_memory(test::built_tool("rtrace") +
                                                           " process -i " + trace + " > /dev/null");
  EXPECT_EQ(run.status, 0);
  EXPECT_LT(run.peak_rss_kib, kMostKib);
}

TEST(TextMemoryCli, APipeIsReadInABufferOfTheLongestLine) {
  const test::MeasuredRun run =
      test::run_measuring_memory(comment_trace_command(kTraceMegabytes) + " | " +
                                 test::built_tool("rtrace") + " process > /dev/null");
  EXPECT_EQ(run.status, 0);
  EXPECT_LT(run.peak_rss_kib, kMostKib);
}

// The longest line read is 1 MiB (rtrace(1), DIAGNOSTICS): a longer one is an error naming the file
// and the line, not a buffer as large as the line.
TEST(TextMemoryCli, ALineLongerThanTheMostIsAnErrorNamingItsLine) {
  const ScratchDir dir;
  const std::string trace = test::quoted(dir / "long.txt");
  ASSERT_EQ(
      test::run_command(comment_trace_command(1) + " > " + trace +
                        "; { printf '# '; head -c 2000000 /dev/zero | tr '\\0' x; } >> " + trace)
          .status,
      0);
  const auto r = test::run_command(test::built_tool("rtrace") + " process -i " + trace);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "rtrace: " + (dir / "long.txt").string() +
                       ":1050: line longer than 1048576 bytes (not a text trace?)\n");
}

}  // namespace
}  // namespace rtrace
