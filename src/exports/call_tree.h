// The sites of one resource type as a tree of frames, outermost caller at the root: what flame
// graphs draw. Sibling frames of the same name merge. Size follows the distinct backtraces.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "exports/allocation_profile.h"

namespace rtrace::exporters {

struct CallTreeNode {
  std::string name;
  std::uint64_t value = 0;                // inclusive
  std::vector<std::uint32_t> children{};  // indices into CallTree::nodes, in order of first use
};

struct CallTree {
  std::vector<CallTreeNode> nodes;  // nodes[0]: the root ("all")
};

// One path per stack: `stacks[i]` is outermost first, weighing `values[i]`; zero weights skipped.
CallTree build_call_tree(const std::vector<std::vector<std::string>>& stacks,
                         const std::vector<std::uint64_t>& values);

}  // namespace rtrace::exporters
