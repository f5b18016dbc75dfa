// BOTTOM-UP (--bottom-up): per resource type, each allocating function with its self cost (what
// it allocated itself) and inclusive cost (what it and what it calls allocated) under the
// chosen weight, and the paths of its callers beneath, as heaptrack's bottom-up view.
#include <fmt/format.h>

#include <iterator>

#include "reports/call_tree_text.h"
#include "reports/call_trees.h"
#include "reports/section_table.h"

namespace rtrace::reports {
namespace {

std::vector<TypeCallTree> trees(const SectionInput& input, FunctionStacks& stacks) {
  return call_trees(input.data, stacks, input.options.trees.weight, TreeDirection::BottomUp);
}

TreeShape shape(const SectionInput& input, const FunctionStacks& stacks, const TypeCallTree& t) {
  return {.stacks = stacks,
          .options = input.options,
          .unit = resource_unit(*t.totals),
          .children_member = "callers"};
}

constexpr std::string_view kFigures[] = {"cost"};
constexpr CallTreeView kView{
    .title = "BOTTOM-UP",
    .explanation = "each allocating function, self and inclusive, its callers beneath",
    .member = "bottom_up",
    .id = "bottom-up",
    .note =
        "each allocating function with what it allocated itself, the paths of its callers "
        "indented beneath it with what each path allocated",
    .figures = kFigures};

void text(const SectionInput& input, std::string& out) {
  if (!input.options.trees.bottom_up) {
    return;
  }
  const CostWeight weight = input.options.trees.weight;
  FunctionStacks stacks(input.data, input.options.wrappers);
  append_view_text(out, kView, weight, trees(input, stacks), [&](const TypeCallTree& t) {
    const TreeShape look = shape(input, stacks, t);
    std::size_t shown = 0;
    for (const FunctionTree::NodeId id : t.tree.root().children) {
      if (shown++ == input.options.top) {
        fmt::format_to(std::back_inserter(out), "    ... {} more function(s)\n",
                       t.tree.root().children.size() - input.options.top);
        break;
      }
      const FunctionTree::Node& node = t.tree.node(id);
      fmt::format_to(std::back_inserter(out), "    {}: self {}, inclusive {}\n",
                     shown_name(stacks.name(node.function), input.options),
                     cost_text(node.inclusive, weight, look.unit),
                     cost_text(t.function_cost[node.function], weight, look.unit));
      append_tree_text(out, t.tree, id, 6, node.inclusive, look);
    }
  });
}

void json(const SectionInput& input, JsonLines& out) {
  if (!input.options.trees.bottom_up) {
    return;
  }
  FunctionStacks stacks(input.data, input.options.wrappers);
  append_view_json(out, kView, input.options.trees.weight, trees(input, stacks),
                   [&](const TypeCallTree& t, Json& type) {
                     const TreeShape look = shape(input, stacks, t);
                     Json functions = Json::array();
                     std::size_t shown = 0;
                     for (const FunctionTree::NodeId id : t.tree.root().children) {
                       if (shown++ == input.options.top) {
                         break;
                       }
                       const FunctionTree::Node& node = t.tree.node(id);
                       Json function;
                       function["function"] =
                           json_text(shown_name(stacks.name(node.function), input.options));
                       function["self"] = node.inclusive;
                       function["inclusive"] = t.function_cost[node.function];
                       function["callers"] = tree_json(t.tree, id, node.inclusive, look);
                       functions.push_back(std::move(function));
                     }
                     type["functions"] = std::move(functions);
                   });
}

void html(const SectionInput& input, HtmlSectionParts& out) {
  if (!input.options.trees.bottom_up) {
    return;
  }
  FunctionStacks stacks(input.data, input.options.wrappers);
  append_view_tables(
      out, kView, input.options.trees.weight, trees(input, stacks), [&](const TypeCallTree& t) {
        const TreeShape look = shape(input, stacks, t);
        Json rows = Json::array();
        std::size_t shown = 0;
        for (const FunctionTree::NodeId id : t.tree.root().children) {
          if (shown++ == input.options.top) {
            break;
          }
          const FunctionTree::Node& node = t.tree.node(id);
          rows.push_back(Json::array({json_text(stacks.name(node.function)), node.inclusive}));
          append_tree_rows(rows, t.tree, id, 1, node.inclusive, look);
        }
        return rows;
      });
}

}  // namespace

ReportSection bottom_up_section() {
  return {.name = "bottom_up", .text = text, .json = json, .html = html};
}

}  // namespace rtrace::reports
