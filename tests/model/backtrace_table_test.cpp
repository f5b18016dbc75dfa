#include "model/backtrace_table.h"

#include <gtest/gtest.h>

#include <vector>

namespace rtrace {
namespace {

std::vector<Frame> addresses(std::initializer_list<Address> list) {
  std::vector<Frame> frames;
  for (const Address a : list) {
    frames.push_back({.address = a});
  }
  return frames;
}

std::vector<Frame> copy(std::span<const Frame> frames) {
  return {frames.begin(), frames.end()};
}

TEST(BacktraceTable, EmptyIsZero) {
  BacktraceTable table;
  EXPECT_EQ(table.intern({}), 0U);
  EXPECT_TRUE(table.frames(0).empty());
}

TEST(BacktraceTable, InternsByContent) {
  BacktraceTable table;
  const std::vector<Frame> a = addresses({0x401000, 0x402000, 0x7f0000001234});
  const std::vector<Frame> b = addresses({0x401000, 0x402000});
  const BacktraceId ia = table.intern(a);
  const BacktraceId ib = table.intern(b);
  EXPECT_NE(ia, ib);
  EXPECT_EQ(table.intern(std::vector<Frame>(a)), ia);
  EXPECT_EQ(copy(table.frames(ia)), a);
  EXPECT_EQ(copy(table.frames(ib)), b);
}

TEST(BacktraceTable, SymbolsArePartOfAFrame) {
  BacktraceTable table;
  // mpatrol-style frames: no address, different symbols.
  const std::vector<Frame> f{{.address = 0, .symbol = 1}};
  const std::vector<Frame> g{{.address = 0, .symbol = 2}};
  EXPECT_NE(table.intern(f), table.intern(g));
  EXPECT_EQ(table.intern(f), table.intern(std::vector<Frame>(f)));
}

TEST(BacktraceTable, ManyDistinctStacksSurviveGrowth) {
  BacktraceTable table;
  for (Address i = 0; i < 50000; ++i) {
    ASSERT_EQ(table.intern(addresses({i, i * 7, 0x400000 + i})), i + 1);
  }
  for (Address i = 0; i < 50000; i += 977) {
    EXPECT_EQ(table.intern(addresses({i, i * 7, 0x400000 + i})), i + 1);
  }
  EXPECT_EQ(table.size(), 50001U);
}

// Return addresses that all land in one slot under an unkeyed multiply-xorshift hash (what the
// table used before its hash was seeded) spread like any others.
TEST(BacktraceTable, CraftedBacktracesDoNotShareAProbeRun) {
  // The old hash of a one-frame backtrace {w}: h = (0x9e3779b97f4a7c15 ^ 1 ^ w) * K, then
  // h ^= h >> 31, slot = h & mask. Taking h * K = j << 52 makes the low 21 bits 0 for every j.
  constexpr std::uint64_t kMultiplier = 0xbf58476d1ce4e5b9ULL;
  constexpr std::uint64_t kStart = 0x9e3779b97f4a7c15ULL ^ 1;
  std::uint64_t unmultiply = kMultiplier;
  for (int i = 0; i < 6; ++i) {
    unmultiply *= 2 - kMultiplier * unmultiply;
  }
  ASSERT_EQ(unmultiply * kMultiplier, 1U);
  constexpr std::uint64_t kCount = 4095;
  BacktraceTable table;
  for (std::uint64_t j = 1; j <= kCount; ++j) {
    const Frame frame{.address = ((j << 52) * unmultiply) ^ kStart};
    table.intern(std::span(&frame, 1));
  }
  EXPECT_EQ(table.size(), kCount + 1);
  EXPECT_LT(table.longest_probe(), 100U);
}

}  // namespace
}  // namespace rtrace
