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

// rtrace report --leak-kinds as valgrind's --show-leak-kinds: LEAKS BY KIND lists the selected
// kinds only (text, JSON, the page's table), the LEAK SUMMARY every kind.
TEST(LeakCheck, ReportLeakKindsSelectTheLossRecordsNotTheSummary) {
  ScratchDir scratch;
  const fs::path trace = record(scratch, "checked", "--leak-check");
  const std::string options = " report --no-resolve --no-default-suppressions ";
  const CommandResult all = run_command(rtrace() + options + "'" + trace.string() + "'");
  const CommandResult definite =
      run_command(rtrace() + options + "--leak-kinds definite '" + trace.string() + "'");
  ASSERT_EQ(definite.status, 0) << definite.err;
  const auto by_kind = [](const std::string& text) {
    const std::size_t from = text.find("\nLEAKS BY KIND\n");
    const std::size_t to = text.find("\n\n", from + 1);
    return from == std::string::npos ? std::string() : text.substr(from, to - from);
  };
  // The 3 roots of the dropped chain, cycle and tree, each its own site (40 bytes each), and no
  // other kind.
  const std::string definite_only = by_kind(definite.out);
  EXPECT_TRUE(
      definite_only.starts_with("\nLEAKS BY KIND\ndefinitely lost: 120 bytes in 3 blocks\n"))
      << definite_only;
  std::size_t records = 0;
  for (std::size_t at = definite_only.find("\n  40 bytes in 1 blocks allocated at\n");
       at != std::string::npos;
       at = definite_only.find("\n  40 bytes in 1 blocks allocated at\n", at + 1)) {
    ++records;
  }
  EXPECT_EQ(records, 3U) << definite_only;
  for (const char* other : {"\nindirectly lost: ", "\npossibly lost: ", "\nstill reachable: "}) {
    EXPECT_EQ(definite_only.find(other), std::string::npos) << definite_only;
  }
  EXPECT_NE(by_kind(all.out).find("\nindirectly lost: 440 bytes in 11 blocks\n"),
            std::string::npos);
  EXPECT_EQ(leak_summary(trace), definite.out.substr(definite.out.find("LEAK SUMMARY:\n")));

  const CommandResult json = run_command(
      rtrace() + options + "--json --leak-kinds definite,indirect '" + trace.string() + "'");
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_NE(json.out.find(R"("kind": "definite", "blocks": 3, "bytes": 120)"), std::string::npos)
      << json.out;
  EXPECT_NE(json.out.find(R"("kind": "indirect", "blocks": 11, "bytes": 440)"), std::string::npos);
  EXPECT_EQ(json.out.find(R"("kind": "possible")"), std::string::npos);
  EXPECT_EQ(json.out.find(R"("kind": "reachable")"), std::string::npos);
  EXPECT_NE(json.out.find(R"("reachable": {"blocks": )"), std::string::npos);  // the summary

  const fs::path page = scratch / "page.html";
  ASSERT_EQ(run_command(rtrace() + options + "--leak-kinds possible --html '" + page.string() +
                        "' '" + trace.string() + "'")
                .status,
            0);
  const std::string html = read_file(page);
  const std::size_t table = html.find(R"("id": "leaks-by-kind")");
  ASSERT_NE(table, std::string::npos);
  const std::string rows = html.substr(table, html.find(R"("id": "leak-summary")") - table);
  EXPECT_NE(rows.find(R"(["possibly lost", )"), std::string::npos) << rows;
  EXPECT_EQ(rows.find(R"(["definitely lost", )"), std::string::npos) << rows;

  const CommandResult bad =
      run_command(rtrace() + options + "--leak-kinds lost '" + trace.string() + "'");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("unknown leak kind 'lost'"), std::string::npos) << bad.err;
}

// Suppressions apply on top of the kinds: the blocks of a suppressed backtrace leave their kinds
// for the summary's "suppressed", with the default rules as with the user's.
TEST(LeakCheck, SuppressedBlocksLeaveTheirKindsForSuppressed) {
  ScratchDir scratch;
  const fs::path trace = record(scratch, "checked", "--leak-check");
  const fs::path rules = scratch / "cycle.supp";
  write_file(rules, "leak:lose_a_cycle\n");
  const CommandResult report =
      run_command(rtrace() + " report --no-default-suppressions --suppressions '" + rules.string() +
                  "' '" + trace.string() + "'");
  ASSERT_EQ(report.status, 0) << report.err;
  const std::string summary = report.out.substr(report.out.find("LEAK SUMMARY:\n"));
  EXPECT_TRUE(
      summary.starts_with("LEAK SUMMARY:\n"
                          "   definitely lost: 80 bytes in 2 blocks\n"
                          "   indirectly lost: 360 bytes in 9 blocks\n"))
      << summary;
  EXPECT_TRUE(summary.ends_with("        suppressed: 120 bytes in 3 blocks\n")) << summary;

  // The shipped rules: what LEAKS says they took is the summary's "suppressed".
  const CommandResult defaults = run_command(rtrace() + " report '" + trace.string() + "'");
  ASSERT_EQ(defaults.status, 0) << defaults.err;
  std::smatch taken;
  ASSERT_TRUE(std::regex_search(defaults.out, taken,
                                std::regex(R"(\n  suppressed: (\d+) block\(s\), (\d+) bytes\n)")))
      << defaults.out;
  EXPECT_GT(std::stoull(taken[1].str()), 0U);
  const auto grouped = [](std::string digits) {  // 4242 as valgrind writes it, "4,242"
    for (std::size_t at = digits.size(); at > 3; at -= 3) {
      digits.insert(at - 3, ",");
    }
    return digits;
  };
  EXPECT_NE(defaults.out.find("\n        suppressed: " + grouped(taken[2].str()) + " bytes in " +
                              grouped(taken[1].str()) + " blocks\n"),
            std::string::npos)
      << defaults.out;
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
