// The inlined calls (and nested functions) inside one function, read from DWARF on demand.
//
// Optimised C++ functions hold hundreds of inlined calls, each with its parameters, variables
// and lexical blocks, while a trace asks about a few addresses per function. So a scope's
// children are read the first time an address falls into that scope: an address costs the DIEs
// along its own chain of inlined calls, not the whole body.
#pragma once

#include <elfutils/libdw.h>

#include <cstdint>
#include <string>
#include <vector>

#include "symbols/dwarf_index.h"

namespace rtrace::symbols {

class FunctionBody {
 public:
  // `function`: the DIE offset of a subprogram with code.
  FunctionBody(Dwarf* dwarf, Dwarf_Off function);

  // The deepest inlined call or nested function whose code contains `address`; -1 if none
  // (the address is in the function's own code).
  int innermost(std::uint64_t address);

  // -1: the function itself.
  int parent(int node) const { return nodes_[node + 1].parent - 1; }
  bool inlined(int node) const { return nodes_[node + 1].inlined; }
  Dwarf_Off offset(int node) const { return nodes_[node + 1].offset; }
  // What was read from DWARF about a node, kept: addresses share inlined calls.
  const std::string*& name(int node) { return nodes_[node + 1].name; }
  const SourceFrame*& call_site(int node) { return nodes_[node + 1].call_site; }

 private:
  // Node 0 is the function itself; the public indices are one less.
  struct Node {
    Dwarf_Off offset = 0;
    int parent = 0;
    bool inlined = false;
    bool expanded = false;  // children read
    std::uint32_t first_child_range = 0;
    std::uint32_t child_range_count = 0;
    const std::string* name = nullptr;
    const SourceFrame* call_site = nullptr;  // inlined calls: the caller's line (no function)
  };
  struct Range {
    std::uint64_t low = 0;
    std::uint64_t high = 0;
    int node = 0;
  };

  void expand(int node);
  void add_child(Dwarf_Die& die, int parent, bool inlined);

  Dwarf* dwarf_;
  std::vector<Node> nodes_;
  std::vector<Range> ranges_;  // each node's children's ranges, one block per expanded node
  std::vector<Range> scratch_;
};

}  // namespace rtrace::symbols
