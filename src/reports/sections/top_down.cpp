// TOP-DOWN (--top-down): per resource type, the calling contexts from the entry points down,
// each function with its inclusive cost (what it and what it calls allocated) and its self cost
// (what it allocated itself) under the chosen weight, as heaptrack's top-down view.
#include <fmt/format.h>

#include <iterator>

#include "reports/call_tree_text.h"
#include "reports/call_trees.h"
#include "reports/section_table.h"

namespace rtrace::reports {
namespace {

std::vector<TypeCallTree> trees(const SectionInput& input, FunctionStacks& stacks) {
  return call_trees(input.data, stacks, input.options.trees.weight, TreeDirection::TopDown);
}

TreeShape shape(const SectionInput& input, const FunctionStacks& stacks, const TypeCallTree& t) {
  return {.stacks = stacks,
          .options = input.options,
          .unit = resource_unit(*t.totals),
          .children_member = "callees",
          .with_self = true};
}

void text(const SectionInput& input, std::string& out) {
  if (!input.options.trees.top_down) {
    return;
  }
  const CostWeight weight = input.options.trees.weight;
  fmt::format_to(std::back_inserter(out),
                 "\nTOP-DOWN ({}: from the entry points down, inclusive, and self where a "
                 "function allocated itself)\n",
                 cost_weight_title(weight));
  FunctionStacks stacks(input.data, input.options.wrappers);
  const std::vector<TypeCallTree> all = trees(input, stacks);
  if (all.empty()) {
    out += "  none\n";
  }
  for (const TypeCallTree& t : all) {
    const TreeShape look = shape(input, stacks, t);
    fmt::format_to(std::back_inserter(out), "  {}: {} in all\n", t.totals->type.type,
                   cost_text(t.tree.root().inclusive, weight, look.unit));
    append_tree_text(out, t.tree, FunctionTree::kRoot, 4, t.tree.root().inclusive, look);
  }
}

void json(const SectionInput& input, JsonLines& out) {
  if (!input.options.trees.top_down) {
    return;
  }
  FunctionStacks stacks(input.data, input.options.wrappers);
  Json types = Json::array();
  for (const TypeCallTree& t : trees(input, stacks)) {
    Json type;
    type["type"] = json_text(t.totals->type.type);
    type["total"] = t.tree.root().inclusive;
    type["callees"] =
        tree_json(t.tree, FunctionTree::kRoot, t.tree.root().inclusive, shape(input, stacks, t));
    types.push_back(std::move(type));
  }
  Json section;
  section["weight"] = cost_weight_name(input.options.trees.weight);
  section["types"] = std::move(types);
  out.push_back({{"top_down", std::move(section)}});
}

void html(const SectionInput& input, HtmlSectionParts& out) {
  if (!input.options.trees.top_down) {
    return;
  }
  FunctionStacks stacks(input.data, input.options.wrappers);
  const CostWeight weight = input.options.trees.weight;
  const std::string_view kind = cost_weight_is_size(weight) ? "bytes" : "count";
  for (const TypeCallTree& t : trees(input, stacks)) {
    Json rows = Json::array();
    append_tree_rows(rows, t.tree, FunctionTree::kRoot, 0, t.tree.root().inclusive,
                     shape(input, stacks, t));
    out.tables.push_back(html_table(
        fmt::format("top-down-{}", t.totals->type.type),
        fmt::format("Top-down: {} by {}", t.totals->type.type, cost_weight_title(weight)),
        "from the entry points down, each function's callees indented beneath it",
        Json::array({Json::array({"text", "function"}), Json::array({kind, "inclusive"}),
                     Json::array({kind, "self"})}),
        std::move(rows)));
  }
}

}  // namespace

ReportSection top_down_section() {
  return {.name = "top_down", .text = text, .json = json, .html = html};
}

}  // namespace rtrace::reports
