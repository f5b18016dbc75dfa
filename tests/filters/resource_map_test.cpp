// The live-resource table against hash flooding: resource ids that all land in one slot under an
// unkeyed multiplicative hash (what the table used before its hash was seeded) spread like any
// other ids.
#include "filters/resource_map.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace rtrace {
namespace {

// The multiplicative inverse of an odd number modulo 2^64 (Newton's iteration).
std::uint64_t inverse(std::uint64_t odd) {
  std::uint64_t x = odd;
  for (int i = 0; i < 6; ++i) {
    x *= 2 - odd * x;
  }
  return x;
}

TEST(ResourceMap, CraftedIdsDoNotShareAProbeRun) {
  // Under Fibonacci hashing (id * 0x9e3779b97f4a7c15, top bits) these ids all hash to 0..n:
  // every one of them lands in slot 0, and each insertion walks past all the ones before.
  constexpr std::uint64_t kFibonacci = 0x9e3779b97f4a7c15ULL;
  constexpr std::uint64_t kCount = 20000;
  const std::uint64_t unmultiply = inverse(kFibonacci);
  ASSERT_EQ(unmultiply * kFibonacci, 1U);
  ResourceMap<std::uint32_t> map;
  for (std::uint64_t j = 1; j <= kCount; ++j) {
    map.insert({.id = j * unmultiply, .type = 1}, 0);
  }
  EXPECT_EQ(map.size(), kCount);
  EXPECT_LT(map.longest_probe(), 100U);
  for (std::uint64_t j = 1; j <= kCount; ++j) {
    ASSERT_NE(map.find({.id = j * unmultiply, .type = 1}), map.kNone);
  }
}

}  // namespace
}  // namespace rtrace
