// `rtrace record --leak-check` through the real tools: the kinds of leak_shapes.cpp's blocks
// reach every reader and writer (compact, text, compact again), `rtrace process -l
// --leak-kinds` selects by them, and a trace without the check keeps today's behaviour. The
// kinds themselves are compared with valgrind's in valgrind_agreement_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>

#include "support/test_paths.h"

namespace rtrace::test {
namespace {

namespace fs = std::filesystem;

std::string rtrace() {
  return "'" + (build_dir() / "bin" / "rtrace").string() + "'";
}

std::string leak_shapes() {
  return "'" + std::string(RTRACE_TRACER_PROGRAMS) + "/leak_shapes'";
}

// The one trace `rtrace record` writes of leak_shapes into `scratch`/`name`.
fs::path record(const ScratchDir& scratch, const std::string& name, const std::string& options) {
  const fs::path traces = scratch / name;
  fs::create_directories(traces);
  const CommandResult recorded = run_command(rtrace() + " record -q -s -e memory " + options +
                                             " -o '" + traces.string() + "' -x " + leak_shapes());
  EXPECT_EQ(recorded.status, 0) << recorded.err;
  return fs::directory_iterator(traces)->path();
}

std::string leak_summary(const fs::path& trace) {
  const CommandResult report = run_command(
      rtrace() + " report --no-resolve --no-default-suppressions '" + trace.string() + "'");
  EXPECT_EQ(report.status, 0) << report.err;
  const std::size_t at = report.out.find("LEAK SUMMARY:\n");
  return at == std::string::npos ? std::string() : report.out.substr(at);
}

const char* const kExpectedHead =
    "LEAK SUMMARY:\n"
    "   definitely lost: 120 bytes in 3 blocks\n"
    "   indirectly lost: 440 bytes in 11 blocks\n";

TEST(LeakCheck, SummaryIsTheSameThroughTextAndCompactAgain) {
  ScratchDir scratch;
  const fs::path trace = record(scratch, "checked", "--leak-check");
  const std::string summary = leak_summary(trace);
  ASSERT_TRUE(summary.starts_with(kExpectedHead)) << summary;
  EXPECT_TRUE(summary.ends_with("        suppressed: 0 bytes in 0 blocks\n")) << summary;

  const fs::path text = scratch / "trace.txt";
  ASSERT_EQ(
      run_command(rtrace() + " process -i '" + trace.string() + "' -o '" + text.string() + "'")
          .status,
      0);
  const std::string text_trace = read_file(text);
  EXPECT_NE(text_trace.find("\n## leak kinds: pid="), std::string::npos);
  EXPECT_EQ(leak_summary(text), summary);

  const fs::path compact = scratch / "again.rtrace";
  ASSERT_EQ(run_command(rtrace() + " process --to compact -i '" + text.string() + "' -o '" +
                        compact.string() + "'")
                .status,
            0);
  EXPECT_EQ(leak_summary(compact), summary);
}

TEST(LeakCheck, LeakKindsSelectTheLeaksAndTheirSummary) {
  ScratchDir scratch;
  const fs::path trace = record(scratch, "checked", "--leak-check");
  const CommandResult definite =
      run_command(rtrace() + " process -l --no-default-suppressions --leak-kinds definite -i '" +
                  trace.string() + "'");
  ASSERT_EQ(definite.status, 0) << definite.err;
  const std::regex allocation(R"(\n[0-9]+\. (\[[0-9:.]+\] )?malloc\(40\) = 0x[0-9a-f]+\n)");
  const auto calls =
      std::distance(std::sregex_iterator(definite.out.begin(), definite.out.end(), allocation),
                    std::sregex_iterator());
  EXPECT_EQ(calls, 3) << definite.out;
  EXPECT_NE(definite.out.find("# 3 block(s) leaked with total size of 120 bytes"),
            std::string::npos)
      << definite.out;

  const CommandResult all =
      run_command(rtrace() + " process -l --no-default-suppressions -i '" + trace.string() + "'");
  const CommandResult all_kinds =
      run_command(rtrace() + " process -l --no-default-suppressions --leak-kinds all -i '" +
                  trace.string() + "'");
  EXPECT_EQ(all_kinds.out, all.out);

  const CommandResult bad =
      run_command(rtrace() + " process -l --leak-kinds lost -i '" + trace.string() + "'");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("unknown leak kind 'lost'"), std::string::npos) << bad.err;
}

TEST(LeakCheck, WithoutTheCheckKindsAreUnknownAndNothingChanges) {
  ScratchDir scratch;
  const fs::path trace = record(scratch, "plain", "");
  EXPECT_EQ(leak_summary(trace), "");
  const CommandResult all =
      run_command(rtrace() + " process -l --no-default-suppressions -i '" + trace.string() + "'");
  const CommandResult definite =
      run_command(rtrace() + " process -l --no-default-suppressions --leak-kinds definite -i '" +
                  trace.string() + "'");
  EXPECT_EQ(definite.out, all.out);
  EXPECT_EQ(all.out.find("## leak kind"), std::string::npos);
}

TEST(LeakCheck, RefusedWithTheSpRtraceFormat) {
  const CommandResult refused =
      run_command(rtrace() + " record --leak-check --format sp-rtrace -x true");
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("--leak-check: the leak kinds are written in the compact format only"),
            std::string::npos)
      << refused.err;
}

}  // namespace
}  // namespace rtrace::test
