// The live-bytes timeline stays bounded however long the trace, spread over it, last kept.
#include "exports/timeline.h"

#include <gtest/gtest.h>

namespace rtrace::exporters {
namespace {

TEST(Timeline, BoundedEvenlySpreadAndKeepsTheLastChange) {
  Timeline timeline(8);
  for (std::uint64_t i = 1; i <= 100'000; ++i) {
    timeline.add({.time_ns = i * 10, .index = i, .value = i % 7});
  }
  const std::vector<TimelinePoint> points = timeline.points();
  EXPECT_LE(points.size(), 17U);
  EXPECT_GE(points.size(), 8U);
  EXPECT_EQ(points.front().index, 1U);
  EXPECT_EQ(points.back().index, 100'000U);
  EXPECT_EQ(points.back().value, 100'000U % 7);
  for (std::size_t i = 1; i < points.size(); ++i) {
    EXPECT_LT(points[i - 1].index, points[i].index);
  }
}

TEST(Timeline, SpreadPicksFirstAndLast) {
  std::vector<TimelinePoint> points;
  for (std::uint64_t i = 0; i < 10; ++i) {
    points.push_back({.index = i});
  }
  const std::vector<TimelinePoint> picked = spread(points, 4);
  ASSERT_EQ(picked.size(), 4U);
  EXPECT_EQ(picked[0].index, 0U);
  EXPECT_EQ(picked[1].index, 3U);
  EXPECT_EQ(picked[2].index, 6U);
  EXPECT_EQ(picked[3].index, 9U);
  EXPECT_EQ(spread(points, 20).size(), 10U);
}

}  // namespace
}  // namespace rtrace::exporters
