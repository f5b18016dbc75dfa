// The report's calling-context tree: backtraces that share callers share nodes, a backtrace seen
// again is the same node, and each distinct frame is stored once.
#include "reports/calling_context_tree.h"

#include <gtest/gtest.h>

#include <vector>

namespace rtrace::reports {
namespace {

std::vector<Address> addresses(const CallingContextTree& tree, CallingContextTree::NodeId node) {
  std::vector<Address> out;
  tree.for_each_frame(node, [&](std::uint32_t frame) { out.push_back(tree.frame(frame).address); });
  return out;
}

TEST(CallingContextTree, SharedCallersShareNodes) {
  CallingContextTree tree;
  // Innermost first: two leaves under main <- start, and main alone.
  const std::vector<Frame> a{{.address = 0x10}, {.address = 0x20}, {.address = 0x30}};
  const std::vector<Frame> b{{.address = 0x11}, {.address = 0x20}, {.address = 0x30}};
  const std::vector<Frame> main_only{{.address = 0x20}, {.address = 0x30}};
  const CallingContextTree::NodeId na = tree.intern(a);
  const CallingContextTree::NodeId nb = tree.intern(b);
  EXPECT_NE(na, nb);
  EXPECT_EQ(tree.parent(na), tree.parent(nb));
  EXPECT_EQ(tree.intern(main_only), tree.parent(na));
  EXPECT_EQ(tree.intern(a), na);
  EXPECT_EQ(tree.size(), 5U);  // the root, start, main and the two leaves
  EXPECT_EQ(tree.frame_count(), 4U);
  EXPECT_EQ(addresses(tree, nb), (std::vector<Address>{0x11, 0x20, 0x30}));
  EXPECT_EQ(tree.depth(nb), 3U);
  EXPECT_EQ(tree.intern({}), CallingContextTree::kRoot);
}

TEST(CallingContextTree, SameAddressOtherSymbolIsAnotherFrame) {
  CallingContextTree tree;
  const std::vector<Frame> named{{.address = 0x10, .symbol = 1}};
  const std::vector<Frame> other{{.address = 0x10, .symbol = 2}};
  EXPECT_NE(tree.intern(named), tree.intern(other));
  EXPECT_EQ(tree.frame_count(), 2U);
}

TEST(CallingContextTree, ManyBacktracesEachFoundAgain) {
  CallingContextTree tree;
  std::vector<CallingContextTree::NodeId> nodes;
  for (Address i = 0; i < 20000; ++i) {
    nodes.push_back(tree.intern(std::vector<Frame>{{.address = i % 7}, {.address = 100 + i}}));
  }
  for (Address i = 0; i < 20000; ++i) {
    ASSERT_EQ(tree.intern(std::vector<Frame>{{.address = i % 7}, {.address = 100 + i}}), nodes[i]);
    ASSERT_EQ(addresses(tree, nodes[i]), (std::vector<Address>{i % 7, 100 + i}));
  }
  EXPECT_EQ(tree.size(), 1U + 2 * 20000);
}

}  // namespace
}  // namespace rtrace::reports
