// TOP-DOWN (--top-down): per resource type, the calling contexts from the entry points down,
// each function with its inclusive cost (what it and what it calls allocated) and its self cost
// (what it allocated itself) under the chosen weight, as heaptrack's top-down view.
#include <string_view>

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

constexpr std::string_view kFigures[] = {"inclusive", "self"};
constexpr CallTreeView kView{
    .title = "TOP-DOWN",
    .explanation =
        "from the entry points down, inclusive, and self where a function allocated "
        "itself",
    .member = "top_down",
    .id = "top-down",
    .note = "from the entry points down, each function's callees indented beneath it",
    .figures = kFigures};

void text(const SectionInput& input, std::string& out) {
  if (!input.options.trees.top_down) {
    return;
  }
  FunctionStacks stacks(input.data, input.options.wrappers);
  append_view_text(out, kView, input.options.trees.weight, trees(input, stacks),
                   [&](const TypeCallTree& t) {
                     append_tree_text(out, t.tree, FunctionTree::kRoot, 4, t.tree.root().inclusive,
                                      shape(input, stacks, t));
                   });
}

void json(const SectionInput& input, JsonLines& out) {
  if (!input.options.trees.top_down) {
    return;
  }
  FunctionStacks stacks(input.data, input.options.wrappers);
  append_view_json(out, kView, input.options.trees.weight, trees(input, stacks),
                   [&](const TypeCallTree& t, Json& type) {
                     type["callees"] = tree_json(t.tree, FunctionTree::kRoot,
                                                 t.tree.root().inclusive, shape(input, stacks, t));
                   });
}

void html(const SectionInput& input, HtmlSectionParts& out) {
  if (!input.options.trees.top_down) {
    return;
  }
  FunctionStacks stacks(input.data, input.options.wrappers);
  append_view_tables(out, kView, input.options.trees.weight, trees(input, stacks),
                     [&](const TypeCallTree& t) {
                       Json rows = Json::array();
                       append_tree_rows(rows, t.tree, FunctionTree::kRoot, 0,
                                        t.tree.root().inclusive, shape(input, stacks, t));
                       return rows;
                     });
}

}  // namespace

ReportSection top_down_section() {
  return {.name = "top_down", .text = text, .json = json, .html = html};
}

}  // namespace rtrace::reports
