#include "exports/call_tree.h"

#include <unordered_map>

namespace rtrace::exporters {

CallTree build_call_tree(const std::vector<std::vector<std::string>>& stacks,
                         const std::vector<std::uint64_t>& values) {
  CallTree tree;
  tree.nodes.push_back({.name = "all"});
  // (parent, name) -> child, so that merging stays linear in the number of frames.
  std::unordered_map<std::string, std::uint32_t> child_of;
  for (std::size_t i = 0; i < stacks.size(); ++i) {
    if (values[i] == 0) {
      continue;
    }
    std::uint32_t node = 0;
    tree.nodes[0].value += values[i];
    for (const std::string& name : stacks[i]) {
      std::string key = std::to_string(node);
      key += '\0';
      key += name;
      const auto [found, added] =
          child_of.try_emplace(std::move(key), static_cast<std::uint32_t>(tree.nodes.size()));
      if (added) {
        tree.nodes[node].children.push_back(found->second);
        tree.nodes.push_back({.name = name});
      }
      node = found->second;
      tree.nodes[node].value += values[i];
    }
  }
  return tree;
}

}  // namespace rtrace::exporters
