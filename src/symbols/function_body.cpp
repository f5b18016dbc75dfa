#include "symbols/function_body.h"

#include <dwarf.h>

#include "symbols/die_ranges.h"

namespace rtrace::symbols {

FunctionBody::FunctionBody(Dwarf* dwarf, Dwarf_Off function) : dwarf_(dwarf) {
  nodes_.push_back({function, -1, false});
}

int FunctionBody::innermost(std::uint64_t address) {
  int node = 0;
  for (;;) {
    if (!nodes_[node].expanded) {
      expand(node);
    }
    const Node& scope = nodes_[node];
    int inner = -1;
    // Sibling scopes do not overlap in sane DWARF; if they do, the later one wins.
    for (std::uint32_t i = 0; i < scope.child_range_count; ++i) {
      const Range& range = ranges_[scope.first_child_range + i];
      if (range.low <= address && address < range.high) {
        inner = range.node;
      }
    }
    if (inner < 0) {
      return node - 1;
    }
    node = inner;
  }
}

// Reads the scopes directly inside `node`: inlined calls and nested functions, looking through
// lexical, try and catch blocks (which are not frames).
void FunctionBody::expand(int node) {
  nodes_[node].expanded = true;
  Dwarf_Die die;
  if (dwarf_offdie(dwarf_, nodes_[node].offset, &die) == nullptr) {
    return;
  }
  scratch_.clear();
  std::vector<Dwarf_Die> pending{die};
  while (!pending.empty()) {
    Dwarf_Die scope = pending.back();
    pending.pop_back();
    Dwarf_Die child;
    if (dwarf_child(&scope, &child) != 0) {
      continue;
    }
    do {
      switch (dwarf_tag(&child)) {
        case DW_TAG_subprogram:
          add_child(child, node, false);
          break;
        case DW_TAG_inlined_subroutine:
          add_child(child, node, true);
          break;
        case DW_TAG_lexical_block:
        case DW_TAG_try_block:
        case DW_TAG_catch_block:
          pending.push_back(child);
          break;
        default:
          break;
      }
    } while (dwarf_siblingof(&child, &child) == 0);
  }
  nodes_[node].first_child_range = static_cast<std::uint32_t>(ranges_.size());
  nodes_[node].child_range_count = static_cast<std::uint32_t>(scratch_.size());
  ranges_.insert(ranges_.end(), scratch_.begin(), scratch_.end());
}

void FunctionBody::add_child(Dwarf_Die& die, int parent, bool inlined) {
  if (!has_code(&die)) {
    return;
  }
  const int node = static_cast<int>(nodes_.size());
  const std::size_t first = scratch_.size();
  for_each_range(&die, [&](Dwarf_Addr low, Dwarf_Addr high) {
    scratch_.push_back({low, high, node});
  });
  if (scratch_.size() != first) {
    nodes_.push_back({dwarf_dieoffset(&die), parent, inlined});
  }
}

}  // namespace rtrace::symbols
