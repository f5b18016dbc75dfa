// How the call-tree views (call_trees.h) read: as indented text, as --json objects and as rows
// of the HTML page's tables, with the same limits everywhere: `depth` levels beneath each
// entry, at most `children` children per node, and none under `min_share` of its entry's cost;
// what a node leaves out is counted in a "more" line or member.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "reports/cost_weight.h"
#include "reports/function_stacks.h"
#include "reports/function_tree.h"
#include "reports/json_layout.h"
#include "reports/report_sections.h"
#include "reports/resource_unit.h"

namespace rtrace::reports {

// What a tree shows and how its figures read.
struct TreeShape {
  const FunctionStacks& stacks;
  const RenderOptions& options;
  ResourceUnit unit;                 // of the tree's type
  std::string_view children_member;  // in JSON: "callers" or "callees"
  bool with_self = false;            // show each node's self cost
};

// A figure of the weight in the type's unit: "3.9 KiB", "2 descriptor(s)", "12".
std::string cost_text(std::uint64_t cost, CostWeight weight, const ResourceUnit& unit);

// The children of `parent`, `indent` spaces in, each a line "COST  NAME[, self COST]" and its
// own children beneath (a node without siblings whose only child follows it keeps the indent,
// as heaptrack_print prints a path without branches). `entry_cost`: what min_share is a share
// of.
void append_tree_text(std::string& out, const FunctionTree& tree, FunctionTree::NodeId parent,
                      std::size_t indent, std::uint64_t entry_cost, const TreeShape& shape);

// The children of `parent` as a JSON array: objects {"function", "inclusive"[, "self"],
// CHILDREN_MEMBER[, "more"]}.
Json tree_json(const FunctionTree& tree, FunctionTree::NodeId parent, std::uint64_t entry_cost,
               const TreeShape& shape);

// The node's children as rows [name indented by level, inclusive(, self with with_self)] of an
// HTML table.
void append_tree_rows(Json& rows, const FunctionTree& tree, FunctionTree::NodeId parent,
                      std::size_t level, std::uint64_t entry_cost, const TreeShape& shape);

}  // namespace rtrace::reports
