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

}  // namespace
}  // namespace rtrace
