// `rtrace record --sample-bytes` through the real tools: sampled_sites.c recorded exactly and
// sampled every 4 KiB (heapprofd's default) with 10 seeds; the report's estimate of every site
// holding at least 1 % of the bytes is within 10 % of the exact recording's.
//
// The sites (sampled_sites.c), 85 MB in all:
//   small_blocks  200000 x 64 B freed      12.8 MB  sd of the estimate sqrt(N / bytes) = 1.8 %
//   medium_blocks  20000 x 1000 B freed    20.0 MB  sd 1.3 %
//   kept_blocks     3000 x 4096 B, half    12.3 MB  sd sqrt(0.58 / 3000) = 1.4 %; its 1500 kept
//                   kept to the end                 blocks (6.1 MB) leak, sd 2.0 %
//   large_blocks     200 x 100000 B calloc 20.0 MB  always sampled (p = 1 - e^-24): exact
//                    200 x 100016 B realloc 20.0 MB
//   few_bytes       1000 x 24 B            24 KB    under 1 %: not compared
// 10 % is at least 5 standard deviations of every compared estimate (a miss has a probability
// below 1e-6 per site and run), and each run's seed (RTRACE_SAMPLE_SEED) fixes its samples: the
// test gives the same result at every run.
#include "model/sampling.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "protocol/tracer_options.h"
#include "support/test_paths.h"

namespace rtrace::test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

std::string rtrace() {
  return quoted(build_dir() / "bin" / "rtrace");
}

std::string sampled_sites() {
  return "'" + std::string(RTRACE_TRACER_PROGRAMS) + "/sampled_sites'";
}

// The one trace `rtrace record` writes of sampled_sites into `scratch`/`name`.
fs::path record(const ScratchDir& scratch, const std::string& name, const std::string& prefix,
                const std::string& options) {
  const fs::path traces = scratch / name;
  fs::create_directories(traces);
  const CommandResult recorded = run_command(prefix + rtrace() + " record -q " + options + " -o " +
                                             quoted(traces) + " -x " + sampled_sites());
  EXPECT_EQ(recorded.status, 0) << recorded.err;
  return fs::directory_iterator(traces)->path();
}

Json json_report(const fs::path& trace) {
  const CommandResult report = run_command(
      rtrace() + " report --json --no-default-suppressions --top 1000 " + quoted(trace));
  EXPECT_EQ(report.status, 0) << report.err;
  return Json::parse(report.out);
}

struct SiteBytes {
  std::uint64_t allocated = 0;
  std::uint64_t leaked = 0;
};

// The memory sites of the program's own functions, by their frame.
std::map<std::string, SiteBytes> program_sites(const Json& report) {
  std::map<std::string, SiteBytes> sites;
  for (const Json& site : report.at("allocation_sites")) {
    const std::string frame = site.at("frame").get<std::string>();
    if (site.at("type") == "memory" && frame.find("sampled_sites.c") != std::string::npos) {
      sites[frame] = {site.at("bytes_allocated").get<std::uint64_t>(),
                      site.at("leaked_bytes").get<std::uint64_t>()};
    }
  }
  return sites;
}

TEST(Sampling, ModuleNameAgreesBetweenTracerAndReaders) {
  EXPECT_EQ(kSampledModulePrefix, std::string_view(tracer_options::kSampledModulePrefix));
}

TEST(Sampling, EverySiteOfOnePercentIsWithinTenPercentOnTenRuns) {
  ScratchDir scratch;
  const Json exact = json_report(record(scratch, "exact", "", ""));
  EXPECT_FALSE(exact.contains("sampled_every_bytes"));
  const std::map<std::string, SiteBytes> expected = program_sites(exact);
  std::uint64_t total = 0;
  for (const auto& [frame, bytes] : expected) {
    total += bytes.allocated;
  }
  ASSERT_GT(total, 84'000'000U);
  std::size_t compared_sites = 0;
  for (const auto& [frame, bytes] : expected) {
    compared_sites += bytes.allocated * 100 >= total ? 1 : 0;
  }
  EXPECT_EQ(compared_sites, 5U);  // all but few_bytes

  for (int seed = 1; seed <= 10; ++seed) {
    const std::string name = "sampled" + std::to_string(seed);
    const Json sampled = json_report(record(
        scratch, name, "RTRACE_SAMPLE_SEED=" + std::to_string(seed) + " ", "--sample-bytes 4K"));
    EXPECT_EQ(sampled.at("sampled_every_bytes"), 4096);
    const std::map<std::string, SiteBytes> estimated = program_sites(sampled);
    for (const auto& [frame, bytes] : expected) {
      if (bytes.allocated * 100 < total) {
        continue;
      }
      ASSERT_TRUE(estimated.contains(frame)) << frame << ", seed " << seed;
      const SiteBytes& estimate = estimated.at(frame);
      EXPECT_NEAR(static_cast<double>(estimate.allocated), static_cast<double>(bytes.allocated),
                  0.1 * static_cast<double>(bytes.allocated))
          << frame << ", seed " << seed;
      // A freed sampled block is not a leak; the kept blocks' leak is estimated as well.
      EXPECT_NEAR(static_cast<double>(estimate.leaked), static_cast<double>(bytes.leaked),
                  0.1 * static_cast<double>(bytes.leaked))
          << frame << ", seed " << seed;
    }
  }
}

TEST(Sampling, TheReportSaysItsFiguresAreEstimates) {
  ScratchDir scratch;
  const fs::path trace = record(scratch, "sampled", "RTRACE_SAMPLE_SEED=1 ", "--sample-bytes 512K");
  const CommandResult report = run_command(rtrace() + " report " + quoted(trace));
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_NE(report.out.find("\nmemory figures: estimated (sampled every 524288 bytes)\n"),
            std::string::npos)
      << report.out;
  // The text trace keeps the interval as a tracing module, a comment line for the original's
  // readers; read back, it still says the figures are estimates.
  const fs::path text = scratch / "trace.txt";
  ASSERT_EQ(run_command(rtrace() + " process -i " + quoted(trace) + " -o " + quoted(text)).status,
            0);
  EXPECT_NE(read_file(text).find("] sample-bytes=524288 (1.0)\n"), std::string::npos);
  const CommandResult again = run_command(rtrace() + " report " + quoted(text));
  EXPECT_EQ(again.out, report.out);
}

TEST(Sampling, UnsampledFreesAreNoErrors) {
  ScratchDir scratch;
  const fs::path trace = record(scratch, "sampled", "RTRACE_SAMPLE_SEED=3 ", "--sample-bytes 64K");
  const CommandResult report = run_command(rtrace() + " report --json " + quoted(trace));
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_EQ(report.err, "");
  // Only the blocks kept to the end are leaks: no freed block shows as one.
  const std::map<std::string, SiteBytes> sites = program_sites(json_report(trace));
  for (const auto& [frame, bytes] : sites) {
    if (frame.find("kept_blocks") == std::string::npos) {
      EXPECT_EQ(bytes.leaked, 0U) << frame;
    }
  }
}

TEST(Sampling, BadIntervalsAreRefused) {
  const CommandResult bad = run_command(rtrace() + " record --sample-bytes 4X -x true");
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err,
            "rtrace: --sample-bytes: '4X' is not a number of bytes (N, or N with K, KiB, M, MiB, "
            "G, GiB)\n");
  const CommandResult with_check =
      run_command(rtrace() + " record --sample-bytes 512K --leak-check -x true");
  EXPECT_EQ(with_check.status, 2);
  EXPECT_EQ(with_check.err,
            "rtrace: --leak-check needs every block (it follows pointers from block to block); "
            "drop --sample-bytes\n");
}

}  // namespace
}  // namespace rtrace::test
