// The CHECKPOINTS section's aggregates on hand-made calls: per scope and process, threads kept
// apart, calls without time, allocations ignored, the exact median and the sampled one.
#include "reports/checkpoint_profile.h"

#include <gtest/gtest.h>

#include <string>

#include "reports/checkpoint_text.h"

namespace rtrace::reports {
namespace {

void hit(CheckpointProfile& profile, std::string_view scope, std::uint32_t pid,
         std::uint64_t thread, std::uint64_t ns, CallKind kind = CallKind::Other) {
  profile.call(CallRecord{.call = {.timestamp_ns = ns, .thread = thread, .pid = pid, .kind = kind},
                          .function = scope,
                          .arguments = {},
                          .frames = {}});
}

TEST(CheckpointProfile, ScopesPerProcessIntervalsPerThread) {
  CheckpointProfile profile;
  hit(profile, "loop", 1, 1, 1000);
  hit(profile, "loop", 1, 2, 1500);
  hit(profile, "loop", 1, 1, 3000);  // thread 1: 2000
  hit(profile, "loop", 1, 2, 2000);  // thread 2: 500
  hit(profile, "loop", 1, 1, 0);     // no time: a hit, no interval
  hit(profile, "loop", 2, 1, 7000);  // another process: another scope
  hit(profile, "malloc", 1, 1, 4000, CallKind::Alloc);
  const std::vector<CheckpointStats> result = profile.result();
  ASSERT_EQ(result.size(), 2U);
  EXPECT_EQ(result[0].hits, 5U);
  EXPECT_EQ(result[0].threads, 2U);
  EXPECT_EQ(result[0].first_ns, 1000U);
  EXPECT_EQ(result[0].last_ns, 2000U);
  EXPECT_EQ(result[0].between_hits.count, 2U);
  EXPECT_EQ(result[0].between_hits.min_ns, 500U);
  EXPECT_EQ(result[0].between_hits.median_ns, 2000U);  // the upper middle of two
  EXPECT_EQ(result[0].between_hits.max_ns, 2000U);
  EXPECT_FALSE(result[0].between_hits.median_estimated);
  EXPECT_EQ(result[1].pid, 2U);
  EXPECT_EQ(result[1].hits, 1U);
  // Times since the trace's start, here 500 ns before the first hit.
  EXPECT_EQ(render_checkpoints(result, 1, 500),
            "\nCHECKPOINTS (calls that neither allocate nor release; seconds since the trace's "
            "start)\n"
            "  loop (pid 1): 5 hit(s) in 2 thread(s), first 0.000000, last 0.000001\n"
            "    between hits of one thread: min 0.000000, median 0.000002, max 0.000002 (2 "
            "interval(s))\n"
            "  ... and 1 more scope(s) (-n)\n");
  EXPECT_EQ(render_checkpoints({}, 10, 0), "");
}

// Intervals 1..n us in random order: the exact median up to the sample size, a close estimate
// beyond it, with min and max always exact.
TEST(CheckpointProfile, MedianIsSampledBeyondTheBound) {
  for (const std::uint64_t n : {std::uint64_t{kMedianSample} + 1, std::uint64_t{100001}}) {
    CheckpointProfile profile;
    std::uint64_t now = 1;
    hit(profile, "tick", 1, 1, now);
    for (std::uint64_t i = 0; i < n; ++i) {
      now += ((i * 7919) % n + 1) * 1000;  // a permutation of 1..n us (7919 is prime to n)
      hit(profile, "tick", 1, 1, now);
    }
    const IntervalStats between = profile.result().at(0).between_hits;
    EXPECT_EQ(between.count, n);
    EXPECT_EQ(between.min_ns, 1000U);
    EXPECT_EQ(between.max_ns, n * 1000);
    EXPECT_TRUE(between.median_estimated);
    const std::uint64_t middle = n / 2 + 1;  // the upper middle of 1..n
    const auto exact = static_cast<double>(middle * 1000);
    EXPECT_NEAR(static_cast<double>(between.median_ns), exact, exact * 0.1) << n;
  }
}

}  // namespace
}  // namespace rtrace::reports
