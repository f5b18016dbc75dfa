#include "model/backtrace_table.h"

#include <gtest/gtest.h>

#include <vector>

namespace rtrace {
namespace {

TEST(BacktraceTable, EmptyIsZero) {
  BacktraceTable table;
  EXPECT_EQ(table.intern({}), 0U);
  EXPECT_TRUE(table.frames(0).empty());
}

TEST(BacktraceTable, InternsByContent) {
  BacktraceTable table;
  const std::vector<Address> a{0x401000, 0x402000, 0x7f0000001234};
  const std::vector<Address> b{0x401000, 0x402000};
  const BacktraceId ia = table.intern(a);
  const BacktraceId ib = table.intern(b);
  EXPECT_NE(ia, ib);
  EXPECT_EQ(table.intern(std::vector<Address>(a)), ia);
  EXPECT_EQ(std::vector<Address>(table.frames(ia).begin(), table.frames(ia).end()), a);
  EXPECT_EQ(std::vector<Address>(table.frames(ib).begin(), table.frames(ib).end()), b);
}

TEST(BacktraceTable, ManyDistinctStacksSurviveGrowth) {
  BacktraceTable table;
  for (Address i = 0; i < 50000; ++i) {
    const std::vector<Address> frames{i, i * 7, 0x400000 + i};
    ASSERT_EQ(table.intern(frames), i + 1);
  }
  for (Address i = 0; i < 50000; i += 977) {
    const std::vector<Address> frames{i, i * 7, 0x400000 + i};
    EXPECT_EQ(table.intern(frames), i + 1);
  }
  EXPECT_EQ(table.size(), 50001U);
}

}  // namespace
}  // namespace rtrace
