// `rtrace record --profile-every` through the real tools: a program of ten seconds
// (periodic_heap.c) recorded with a profile every second gives 10 or 11 profiles (one per second
// that ended while it ran, and one at its end), each read by `go tool pprof`; the last one's
// in-use bytes are the report's leaked bytes at exit, and `rtrace report` charts the series.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "support/test_paths.h"

namespace rtrace {
namespace {

namespace fs = std::filesystem;
using test::quoted;

std::string rtrace() {
  return test::built_tool("rtrace");
}

test::CommandResult pprof(const std::string& arguments) {
  return test::run_command(std::string("'") + RTRACE_GO_PROGRAM + "' tool pprof " + arguments);
}

// The total pprof -top shows for one sample type.
std::uint64_t pprof_total(const fs::path& profile, const std::string& sample_type) {
  const test::CommandResult top =
      pprof("-top -unit=B -sample_index=" + sample_type + " " + quoted(profile));
  EXPECT_EQ(top.status, 0) << top.err;
  std::smatch match;
  if (!std::regex_search(top.out, match, std::regex(R"(of (\d+)B? total)"))) {
    ADD_FAILURE() << "no total in pprof's output:\n" << top.out << top.err;
    return 0;
  }
  return std::stoull(match[1].str());
}

std::vector<fs::path> files_ending(const fs::path& directory, const std::string& suffix) {
  std::vector<fs::path> found;
  for (const fs::path& file : test::files_in(directory)) {
    if (file.filename().string().ends_with(suffix)) {
      found.push_back(file);
    }
  }
  std::ranges::sort(found);
  return found;
}

TEST(ProfileSeries, OneProfileASecondAndTheLastIsTheLeak) {
  const test::ScratchDir dir;
  const test::CommandResult recorded =
      test::run_command(rtrace() + " record -q --profile-every 1s -o " + quoted(dir.path()) +
                        " -x " + quoted(RTRACE_PERIODIC_HEAP));
  ASSERT_EQ(recorded.status, 0) << recorded.err;
  const std::vector<fs::path> profiles = files_ending(dir.path(), ".pb.gz");
  ASSERT_GE(profiles.size(), 10U);
  ASSERT_LE(profiles.size(), 11U);
  const std::string pid_and_first = ".000001.pb.gz";
  EXPECT_TRUE(profiles.front().filename().string().starts_with("periodic_heap."))
      << profiles.front();
  EXPECT_TRUE(profiles.front().filename().string().ends_with(pid_and_first)) << profiles.front();
  std::uint64_t previous_inuse = 0;
  std::uint64_t allocated = 0;
  for (const fs::path& profile : profiles) {
    const std::uint64_t inuse = pprof_total(profile, "inuse_space");
    EXPECT_GE(inuse, previous_inuse) << profile;  // the kept blocks only grow
    previous_inuse = inuse;
    allocated += pprof_total(profile, "alloc_space");
  }
  const std::vector<fs::path> traces = files_ending(dir.path(), ".rtrace");
  ASSERT_EQ(traces.size(), 1U);
  const test::CommandResult report = test::run_command(
      rtrace() + " report --json --no-default-suppressions " + quoted(traces.front()));
  ASSERT_EQ(report.status, 0) << report.err;
  const nlohmann::json parsed = nlohmann::json::parse(report.out);
  for (const nlohmann::json& type : parsed["types"]) {
    if (type["type"] == "memory") {
      EXPECT_EQ(previous_inuse, type["leaked_bytes"].get<std::uint64_t>());
      // The intervals' allocations add up to the whole trace's.
      EXPECT_EQ(allocated, type["bytes_allocated"].get<std::uint64_t>());
    }
  }
  // About 50 kept blocks a second: the last profile holds ten seconds of them.
  EXPECT_GT(previous_inuse, 400U * 1000U);

  // The series charted: one line per profile, from the directory (its trace reported after).
  const test::CommandResult chart = test::run_command(
      rtrace() + " report --json " + quoted(profiles.front()) + " " + quoted(profiles.back()));
  ASSERT_EQ(chart.status, 0) << chart.err;
  const nlohmann::json series = nlohmann::json::parse(chart.out);
  ASSERT_EQ(series["profiles"].size(), 2U);
  EXPECT_EQ(series["profiles"][1]["inuse_space"].get<std::uint64_t>(), previous_inuse);
  const test::CommandResult text = test::run_command(rtrace() + " report " + quoted(dir.path()));
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_TRUE(text.out.starts_with("rtrace report: in use over " + std::to_string(profiles.size()) +
                                   " profile(s)\n"))
      << text.out;
  EXPECT_NE(text.out.find("/periodic_heap (pid "), std::string::npos) << text.out;
  EXPECT_EQ(text.err, "");
}

TEST(ProfileSeries, BadIntervalsAndOutputsAreRefused) {
  const test::CommandResult bad =
      test::run_command(rtrace() + " record --profile-every @12 -x true");
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err, "rtrace: --profile-every: '@12' is not an interval of at least 1 ms\n");
  const test::CommandResult text =
      test::run_command(rtrace() + " record --profile-every 1s -P '-l' -x true");
  EXPECT_EQ(text.status, 2);
  EXPECT_EQ(text.err,
            "rtrace: --profile-every reads the compact trace as it comes to the recorder: drop "
            "-P, -m and --format sp-rtrace\n");
}

}  // namespace
}  // namespace rtrace
