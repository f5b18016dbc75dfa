// What `rtrace` itself answers, before any subcommand runs: --version, and a subcommand it does
// not know (named with the closest one).
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <string_view>

#include "cli/command_suggestion.h"
#include "protocol/compact_protocol.h"
#include "rtrace/build_commit.h"
#include "rtrace/version.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

using test::built_tool;
using test::run_command;

TEST(CommandLine, VersionNamesTheReleaseTheCommitAndTheCompactFormat) {
  const auto r = run_command(built_tool("rtrace") + " --version");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, std::string("rtrace ") + kVersion + " (commit " + kBuildCommit +
                       ", compact format " + std::to_string(compact::kMajor) + "." +
                       std::to_string(compact::kMinor) + ")\n");
  EXPECT_EQ(r.err, "");
}

TEST(CommandLine, BuildCommitIsTheSourceTreesHeadOrUnknown) {
  // Configured in a git checkout: the commit's abbreviated hash, which git knows; elsewhere (a
  // tarball) the fallback.
  const auto head = run_command("git -C " + test::quoted(test::source_dir()) +
                                " rev-parse --verify --quiet " + kBuildCommit + "^{commit}");
  if (head.status == 0) {
    EXPECT_EQ(std::string(kBuildCommit).size(), 7U);
    EXPECT_EQ(std::string(kBuildCommit).find_first_not_of("0123456789abcdef"), std::string::npos);
  } else {
    EXPECT_STREQ(kBuildCommit, "unknown");
  }
}

TEST(CommandLine, UnknownCommandIsNamedWithTheClosestOne) {
  struct Case {
    const char* typed;
    const char* meant;
  };
  for (const Case c :
       {Case{"recrod", "record"}, Case{"reprot", "report"}, Case{"proces", "process"},
        Case{"exprt", "export"}, Case{"stacktrak", "stacktrack"}, Case{"resolv", "resolve"}}) {
    const auto r = run_command(built_tool("rtrace") + " " + c.typed + " -x true");
    EXPECT_EQ(r.status, 2) << c.typed;
    EXPECT_EQ(r.out, "") << c.typed;
    EXPECT_EQ(r.err, std::string("rtrace: unknown command '") + c.typed + "'; did you mean '" +
                         c.meant + "'?\n")
        << c.typed;
  }
}

TEST(CommandLine, UnknownCommandFarFromAllListsThem) {
  const auto r = run_command(built_tool("rtrace") + " frobnicate");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "rtrace: unknown command 'frobnicate'; the commands are: process, record, resolve, "
            "report, export, mptrace, stacktrack, apitrace\n");
}

TEST(CommandLine, KnownCommandsAndOptionsAreLeftToTheParser) {
  EXPECT_EQ(run_command(built_tool("rtrace") + " --help").status, 0);
  const auto none = run_command(built_tool("rtrace"));
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find("A subcommand is required"), std::string::npos) << none.err;
  const auto help = run_command(built_tool("rtrace") + " record --help");
  EXPECT_EQ(help.status, 0) << help.err;
}

TEST(CommandSuggestion, EditDistanceCountsASwapOfNeighboursAsOneEdit) {
  EXPECT_EQ(cli::edit_distance("record", "record"), 0U);
  EXPECT_EQ(cli::edit_distance("recrod", "record"), 1U);
  EXPECT_EQ(cli::edit_distance("rcord", "record"), 1U);
  EXPECT_EQ(cli::edit_distance("recordx", "record"), 1U);
  EXPECT_EQ(cli::edit_distance("rewerd", "record"), 2U);
  EXPECT_EQ(cli::edit_distance("", "abc"), 3U);
  EXPECT_EQ(cli::edit_distance("abc", ""), 3U);
}

TEST(CommandSuggestion, ShortOrFarWordsGetNoSuggestion) {
  constexpr std::array<std::string_view, 3> kNames{"record", "report", "resolve"};
  EXPECT_EQ(cli::closest_name("x", kNames), std::nullopt);       // 1 edit of 1 letter
  EXPECT_EQ(cli::closest_name("rename", kNames), std::nullopt);  // 4 edits from each
  EXPECT_EQ(cli::closest_name("reord", kNames), "record");
  // "repord" is one edit from both "record" and "report": the first in the table wins.
  EXPECT_EQ(cli::closest_name("repord", kNames), "record");
}

}  // namespace
}  // namespace rtrace
