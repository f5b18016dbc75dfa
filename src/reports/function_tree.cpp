#include "reports/function_tree.h"

namespace rtrace::reports {

FunctionTree::NodeId FunctionTree::child(NodeId parent, std::uint32_t function) {
  const auto [found, added] = children_.try_emplace(std::uint64_t{parent} << 32 | function,
                                                    static_cast<NodeId>(nodes_.size()));
  if (added) {
    nodes_[parent].children.push_back(found->second);
    nodes_.push_back(Node{.function = function});
  }
  return found->second;
}

void FunctionTree::add_path(std::span<const std::uint32_t> functions, std::uint64_t cost) {
  NodeId node = kRoot;
  add(node, cost);
  for (const std::uint32_t function : functions) {
    node = child(node, function);
    add(node, cost);
  }
  nodes_[node].self += cost;
}

void FunctionTree::add_reversed_path(std::span<const std::uint32_t> functions, std::uint64_t cost) {
  NodeId node = kRoot;
  add(node, cost);
  for (auto function = functions.rbegin(); function != functions.rend(); ++function) {
    node = child(node, *function);
    add(node, cost);
  }
  nodes_[node].self += cost;
}

}  // namespace rtrace::reports
