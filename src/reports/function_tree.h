// A tree of call paths over functions (function_stacks.h), each node with what the paths
// through it cost (inclusive) and what the paths ending there cost (self): the bottom-up tree
// (allocating functions, their callers beneath), the top-down tree (from the entry point down)
// and the callers and callees of one function are all such trees, filled with different paths.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace rtrace::reports {

class FunctionTree {
 public:
  using NodeId = std::uint32_t;
  static constexpr NodeId kRoot = 0;

  struct Node {
    std::uint32_t function = 0;  // not for the root
    std::uint64_t inclusive = 0;
    std::uint64_t self = 0;
    std::vector<NodeId> children{};  // most inclusive first once sorted
  };

  FunctionTree() : nodes_(1) {}

  // Adds `cost` to every node of the path from the root through `functions` (in order), and to
  // the self cost of its last node (of the root when `functions` is empty).
  void add_path(std::span<const std::uint32_t> functions, std::uint64_t cost);
  // The same with `functions` taken from its last element to its first.
  void add_reversed_path(std::span<const std::uint32_t> functions, std::uint64_t cost);

  // Orders every node's children: most inclusive first, then by `before(function, function)`
  // (a name order, so that the output is the same on every run).
  template <typename Before>
  void sort(Before before) {
    for (Node& node : nodes_) {
      std::ranges::sort(node.children, [&](NodeId a, NodeId b) {
        const Node& x = nodes_[a];
        const Node& y = nodes_[b];
        return x.inclusive != y.inclusive ? x.inclusive > y.inclusive
                                          : before(x.function, y.function);
      });
    }
  }

  const Node& node(NodeId id) const { return nodes_[id]; }
  const Node& root() const { return nodes_[kRoot]; }

 private:
  NodeId child(NodeId parent, std::uint32_t function);
  void add(NodeId node, std::uint64_t cost) { nodes_[node].inclusive += cost; }

  std::vector<Node> nodes_;
  std::unordered_map<std::uint64_t, NodeId> children_;  // parent << 32 | function
};

}  // namespace rtrace::reports
