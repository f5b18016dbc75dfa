// How the call-tree views (call_trees.h) read: as indented text, as --json objects and as rows
// of the HTML page's tables, with the same limits everywhere: `depth` levels beneath each
// entry, at most `children` children per node, and none under `min_share` of its entry's cost;
// what a node leaves out is counted in a "more" line or member.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "reports/call_trees.h"
#include "reports/cost_weight.h"
#include "reports/function_stacks.h"
#include "reports/function_tree.h"
#include "reports/json_layout.h"
#include "reports/report_sections.h"
#include "reports/resource_unit.h"
#include "reports/section_table.h"

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

// A whole view (the bottom-up or the top-down one) in each output, one part per type of `trees`:
// - text: "\nTITLE (WEIGHT: EXPLANATION)", then per type "  TYPE: COST in all" and what `body`
//   writes beneath it ("  none" without a type);
// - JSON: the member {"weight": WEIGHT, "types": [{"type", "total", ...}]}, each type's object
//   completed by `members`;
// - HTML: one table per type, "ID-TYPE" titled "TITLE: TYPE by WEIGHT", its first column the
//   functions and then one of the weight's kind per name of `figures`, rows by `rows`.
struct CallTreeView {
  std::string_view title;        // "BOTTOM-UP"; the HTML title capitalizes it ("Bottom-up")
  std::string_view explanation;  // of the text's heading
  std::string_view member;       // in JSON
  std::string_view id;           // of the HTML tables
  std::string_view note;         // under the HTML tables' titles
  std::span<const std::string_view> figures;  // the HTML tables' figure columns
};
void append_view_text(std::string& out, const CallTreeView& view, CostWeight weight,
                      std::span<const TypeCallTree> trees,
                      const std::function<void(const TypeCallTree&)>& body);
void append_view_json(JsonLines& out, const CallTreeView& view, CostWeight weight,
                      std::span<const TypeCallTree> trees,
                      const std::function<void(const TypeCallTree&, Json&)>& members);
void append_view_tables(HtmlSectionParts& out, const CallTreeView& view, CostWeight weight,
                        std::span<const TypeCallTree> trees,
                        const std::function<Json(const TypeCallTree&)>& rows);

}  // namespace rtrace::reports
