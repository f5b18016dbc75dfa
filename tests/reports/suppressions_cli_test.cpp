// Leak suppressions through the real path: a C++ program with one leak of its own among the
// blocks runtimes keep for the process's lifetime (tests/reports/runtime_blocks_program.cpp) is
// recorded with `rtrace record`, and `rtrace report` / `rtrace process -l` must report its own
// leak alone and list the runtime blocks as suppressed, rule by rule.
//
// The witness is valgrind's memcheck on the same program, with its exit-time clean-ups off (they
// free libc's and libstdc++'s buffers only because valgrind asks): the program's own leak is
// memcheck's one "definitely lost" block, and what the shipped rules suppress is exactly what
// memcheck counts as "still reachable" and "possibly lost" (dlopen's records of the library).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>

#include "support/test_paths.h"

namespace rtrace {
namespace {

namespace fs = std::filesystem;

struct Totals {
  std::uint64_t blocks = 0;
  std::uint64_t bytes = 0;
  friend bool operator==(const Totals&, const Totals&) = default;
};

std::uint64_t without_commas(std::string digits) {
  std::erase(digits, ',');
  return std::stoull(digits);
}

// memcheck's LEAK SUMMARY line of `kind` ("definitely lost", ...).
Totals memcheck_kind(const std::string& log, const std::string& kind) {
  std::smatch match;
  const std::regex line(kind + R"(: ([0-9,]+) bytes in ([0-9,]+) blocks)");
  if (!std::regex_search(log, match, line)) {
    ADD_FAILURE() << "no '" << kind << "' in memcheck's summary:\n" << log;
    return {};
  }
  return {without_commas(match[2].str()), without_commas(match[1].str())};
}

// The line of default.supp that holds `rule`, as the report credits it.
std::string default_rule(const std::string& rule) {
  std::istringstream lines(
      test::read_file(test::source_dir() / "src" / "filters" / "default.supp"));
  std::size_t number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    if (line == rule) {
      return rule + " (default.supp:" + std::to_string(number) + ")";
    }
  }
  ADD_FAILURE() << rule << " is not in default.supp";
  return rule;
}

class SuppressionsCli : public ::testing::Test {
 protected:
  // One recording and one memcheck run for all the tests.
  static void SetUpTestSuite() {
    scratch_ = new test::ScratchDir();
    const fs::path traces = *scratch_ / "traces";
    fs::create_directories(traces);
    const auto recorded = test::run_command(rtrace() + " record -q -s -e memory -o " +
                                            test::quoted(traces) + " -x " + program());
    ASSERT_EQ(recorded.status, 0) << recorded.err;
    trace_ = new std::string(test::files_in(traces).at(0).string());
    const fs::path log = *scratch_ / "memcheck.log";
    const auto memcheck = test::run_command(
        "valgrind --tool=memcheck --leak-check=full --show-leak-kinds=all "
        "--run-libc-freeres=no --run-cxx-freeres=no --log-file=" +
        test::quoted(log) + " " + program());
    ASSERT_EQ(memcheck.status, 0) << memcheck.err;
    memcheck_log_ = new std::string(test::read_file(log));
  }
  static void TearDownTestSuite() {
    delete memcheck_log_;
    delete trace_;
    delete scratch_;
  }

  static std::string rtrace() { return test::built_tool("rtrace"); }
  static std::string program() { return test::quoted(RUNTIME_BLOCKS_PROGRAM); }
  static std::string trace() { return test::quoted(*trace_); }
  static const std::string& memcheck_log() { return *memcheck_log_; }

  static test::CommandResult run(const std::string& arguments) {
    return test::run_command(rtrace() + " " + arguments);
  }

 private:
  static inline test::ScratchDir* scratch_ = nullptr;
  static inline std::string* trace_ = nullptr;
  static inline std::string* memcheck_log_ = nullptr;
};

// What the runtimes hold, as memcheck sees it.
Totals runtime_blocks(const std::string& log) {
  const Totals reachable = memcheck_kind(log, "still reachable");
  const Totals possibly = memcheck_kind(log, "possibly lost");
  return {reachable.blocks + possibly.blocks, reachable.bytes + possibly.bytes};
}

TEST_F(SuppressionsCli, TheProgramsOwnLeakAloneIsReportedTheRuntimesBlocksAreListed) {
  ASSERT_EQ(memcheck_kind(memcheck_log(), "definitely lost"), (Totals{1, 1234}));
  const Totals runtime = runtime_blocks(memcheck_log());
  const auto r = run("report " + trace());
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string leaks = r.out.substr(r.out.find("\nLEAKS\n"));
  EXPECT_TRUE(leaks.starts_with(
      "\nLEAKS\n"
      "  memory: 1 block(s) leaked, 1234 bytes\n"
      "  suppressed: " +
      std::to_string(runtime.blocks) + " block(s), " + std::to_string(runtime.bytes) + " bytes\n"))
      << leaks << "\nmemcheck:\n"
      << memcheck_log();
  // libstdc++'s emergency exception pool (GCC 12's size) and stdout's buffer, one block each.
  EXPECT_NE(leaks.find("\n    1 block(s), 72704 bytes by " + default_rule("leak:_dl_init") + "\n"),
            std::string::npos)
      << leaks;
  EXPECT_NE(leaks.find("\n    1 block(s), 4096 bytes by " +
                       default_rule("leak:_IO_file_doallocate") + "\n"),
            std::string::npos)
      << leaks;
  for (const char* rule : {"leak:_nl_find_locale", "leak:dl_open_worker"}) {
    EXPECT_NE(leaks.find(" by " + default_rule(rule) + "\n"), std::string::npos) << leaks;
  }
  // The top (and only) leak is the program's own, named with its line.
  const std::size_t site = leaks.find(" of memory from:\n");
  ASSERT_NE(site, std::string::npos) << leaks;
  const std::string first_frame = leaks.substr(site, leaks.find('\n', site + 18) - site);
  EXPECT_NE(first_frame.find("remember(unsigned long) at runtime_blocks_program.cpp:18"),
            std::string::npos)
      << leaks;
  EXPECT_TRUE(leaks.substr(0, site).ends_with("\n    1234 bytes in 1 block(s)")) << leaks;
}

TEST_F(SuppressionsCli, NoDefaultSuppressionsShowsEveryBlockAsMemcheckCountsThem) {
  const Totals runtime = runtime_blocks(memcheck_log());
  const auto r = run("report --no-default-suppressions " + trace());
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string leaks = r.out.substr(r.out.find("\nLEAKS\n"));
  EXPECT_TRUE(leaks.starts_with("\nLEAKS\n  memory: " + std::to_string(runtime.blocks + 1) +
                                " block(s) leaked, " + std::to_string(runtime.bytes + 1234) +
                                " bytes\n    72704 bytes in 1 block(s) of memory from:\n"))
      << leaks;
  EXPECT_EQ(leaks.find("suppressed:"), std::string::npos) << leaks;
}

TEST_F(SuppressionsCli, JsonListsTheRulesThatMatched) {
  const auto r = run("report --json " + trace());
  ASSERT_EQ(r.status, 0) << r.err;
  std::smatch match;
  const std::regex pool(
      R"re(\{"rule": "leak:_dl_init", "source": "default.supp", "line": (\d+), "blocks": 1, "bytes": 72704\})re");
  EXPECT_TRUE(std::regex_search(r.out, match, pool)) << r.out;
  EXPECT_NE(r.out.find("\"leaked_blocks\": 1, \"leaked_bytes\": 1234"), std::string::npos) << r.out;
}

TEST_F(SuppressionsCli, TheUsersRulesApplyWithTheDefaultsOrAlone) {
  const test::ScratchDir dir;
  test::write_file(dir / "mine.supp",
                   "# the program's cache\nleak:^(anonymous namespace)::remember$\n");
  const std::string mine = test::quoted(dir / "mine.supp");
  const auto both = run("report --suppressions " + mine + " " + trace());
  ASSERT_EQ(both.status, 0) << both.err;
  EXPECT_NE(both.out.find("\n  memory: 0 block(s) leaked, 0 bytes\n"), std::string::npos)
      << both.out;
  EXPECT_NE(
      both.out.find("\n    1 block(s), 1234 bytes by leak:^(anonymous namespace)::remember$ (" +
                    (dir / "mine.supp").string() + ":2)\n"),
      std::string::npos)
      << both.out;

  const auto alone = run("report --no-default-suppressions --suppressions " + mine + " " + trace());
  ASSERT_EQ(alone.status, 0) << alone.err;
  const std::string leaks = alone.out.substr(alone.out.find("\nLEAKS\n"));
  EXPECT_NE(leaks.find("\n  suppressed: 1 block(s), 1234 bytes\n    1 block(s), 1234 bytes by "),
            std::string::npos)
      << leaks;
  EXPECT_NE(leaks.find("\n    72704 bytes in 1 block(s) of memory from:\n"), std::string::npos)
      << leaks;
}

TEST_F(SuppressionsCli, AMalformedFileIsAnErrorNamingItsLine) {
  const test::ScratchDir dir;
  test::write_file(dir / "bad.supp", "leak:fine\n# a comment\nremember\n");
  const auto r = run("report --suppressions " + test::quoted(dir / "bad.supp") + " " + trace());
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "rtrace: " + (dir / "bad.supp").string() +
                       ":3: expected 'leak:PATTERN', got 'remember'\n");
}

TEST_F(SuppressionsCli, OtherSanitizerKindsAreIgnoredWithAWarning) {
  const test::ScratchDir dir;
  test::write_file(dir / "tsan.supp", "race:remember\ncalled_from_lib:libz.so\n");
  const auto r = run("report --suppressions " + test::quoted(dir / "tsan.supp") + " " + trace());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "rtrace: warning: " + (dir / "tsan.supp").string() +
                       ":1: 2 rule(s) of kinds other than 'leak:' ignored (the first: 'race:'); "
                       "only leak rules apply to a trace\n");
  EXPECT_NE(r.out.find("\n  memory: 1 block(s) leaked, 1234 bytes\n"), std::string::npos);
}

// rtrace process -l with names (-r): the same blocks left out, said in notes before the
// summary; sp-rtrace-postproc writes what the original wrote, every block.
TEST_F(SuppressionsCli, ProcessLeaksLeavesThemOutAndSaysSo) {
  const Totals runtime = runtime_blocks(memcheck_log());
  const auto r = run("process -l -c -r -i " + trace());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\n# suppressed: " + std::to_string(runtime.blocks) +
                       " block(s) with total size " + std::to_string(runtime.bytes) + "\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\n#   1 block(s) with total size 72704 by " +
                       default_rule("leak:_dl_init") + "\n"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(r.out.ends_with("# 1 block(s) leaked with total size of 1234 bytes\n")) << r.out;

  const auto original =
      test::run_command(test::built_tool("sp-rtrace-postproc") + " -l -c -r -i " + trace());
  ASSERT_EQ(original.status, 0) << original.err;
  EXPECT_EQ(original.out.find("suppressed"), std::string::npos);
  EXPECT_TRUE(original.out.ends_with("# " + std::to_string(runtime.blocks + 1) +
                                     " block(s) leaked with total size of " +
                                     std::to_string(runtime.bytes + 1234) + " bytes\n"))
      << original.out;
}

TEST_F(SuppressionsCli, TheHtmlPageCarriesTheSuppressedTotals) {
  const Totals runtime = runtime_blocks(memcheck_log());
  const auto r = run("report --html - " + trace());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"suppressed\": {\"blocks\": " + std::to_string(runtime.blocks) +
                       ", \"bytes\": " + std::to_string(runtime.bytes) + ", \"rules\": ["),
            std::string::npos);
}

}  // namespace
}  // namespace rtrace
