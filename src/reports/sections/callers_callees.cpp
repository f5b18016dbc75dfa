// CALLERS AND CALLEES (--function REGEX): per resource type, each function the pattern finds
// (the most costly first) with its self and inclusive cost under the chosen weight, the paths of
// its callers above it and of its callees below it, as heaptrack's caller/callee view.
#include <fmt/format.h>

#include <iterator>
#include <regex>

#include "reports/call_tree_text.h"
#include "reports/call_trees.h"
#include "reports/section_table.h"

namespace rtrace::reports {
namespace {

std::vector<TypeNeighbours> neighbours(const SectionInput& input, FunctionStacks& stacks) {
  // The command checked the pattern before reading the trace.
  const std::regex pattern(input.options.trees.function);
  return callers_and_callees(input.data, stacks, input.options.trees.weight, pattern,
                             input.options.top);
}

TreeShape shape(const SectionInput& input, const FunctionStacks& stacks, const TypeNeighbours& type,
                bool callees) {
  return {.stacks = stacks,
          .options = input.options,
          .unit = resource_unit(*type.totals),
          .children_member = callees ? "callees" : "callers",
          .with_self = callees};
}

void append_function(std::string& out, const SectionInput& input, const FunctionStacks& stacks,
                     const TypeNeighbours& type, const FunctionNeighbours& f) {
  const CostWeight weight = input.options.trees.weight;
  const TreeShape callers = shape(input, stacks, type, false);
  fmt::format_to(std::back_inserter(out), "    {}: self {}, inclusive {}\n",
                 shown_name(stacks.name(f.function), input.options),
                 cost_text(f.self, weight, callers.unit),
                 cost_text(f.inclusive, weight, callers.unit));
  out += "      called from:\n";
  if (f.callers.root().children.empty()) {
    out += "        (nothing: an entry point)\n";
  }
  append_tree_text(out, f.callers, FunctionTree::kRoot, 8, f.inclusive, callers);
  out += "      calls:\n";
  if (f.callees.root().children.empty()) {
    out += "        (nothing: it allocated itself)\n";
  }
  append_tree_text(out, f.callees, FunctionTree::kRoot, 8, f.inclusive,
                   shape(input, stacks, type, true));
}

void text(const SectionInput& input, std::string& out) {
  if (input.options.trees.function.empty()) {
    return;
  }
  fmt::format_to(std::back_inserter(out), "\nCALLERS AND CALLEES of /{}/ ({})\n",
                 input.options.trees.function, cost_weight_title(input.options.trees.weight));
  FunctionStacks stacks(input.data, input.options.wrappers);
  const std::vector<TypeNeighbours> all = neighbours(input, stacks);
  if (all.empty()) {
    out += "  no function of a backtrace with any of it matches\n";
  }
  for (const TypeNeighbours& type : all) {
    fmt::format_to(std::back_inserter(out), "  {}:\n", type.totals->type.type);
    for (const FunctionNeighbours& f : type.functions) {
      append_function(out, input, stacks, type, f);
    }
  }
}

void json(const SectionInput& input, JsonLines& out) {
  if (input.options.trees.function.empty()) {
    return;
  }
  FunctionStacks stacks(input.data, input.options.wrappers);
  Json types = Json::array();
  for (const TypeNeighbours& type : neighbours(input, stacks)) {
    Json functions = Json::array();
    for (const FunctionNeighbours& f : type.functions) {
      Json function;
      function["function"] = json_text(shown_name(stacks.name(f.function), input.options));
      function["self"] = f.self;
      function["inclusive"] = f.inclusive;
      function["callers"] =
          tree_json(f.callers, FunctionTree::kRoot, f.inclusive, shape(input, stacks, type, false));
      function["callees"] =
          tree_json(f.callees, FunctionTree::kRoot, f.inclusive, shape(input, stacks, type, true));
      functions.push_back(std::move(function));
    }
    Json entry;
    entry["type"] = json_text(type.totals->type.type);
    entry["functions"] = std::move(functions);
    types.push_back(std::move(entry));
  }
  Json section;
  section["pattern"] = json_text(input.options.trees.function);
  section["weight"] = cost_weight_name(input.options.trees.weight);
  section["types"] = std::move(types);
  out.push_back({{"callers_callees", std::move(section)}});
}

void html(const SectionInput& input, HtmlSectionParts& out) {
  if (input.options.trees.function.empty()) {
    return;
  }
  FunctionStacks stacks(input.data, input.options.wrappers);
  const CostWeight weight = input.options.trees.weight;
  const std::string_view kind = cost_weight_is_size(weight) ? "bytes" : "count";
  for (const TypeNeighbours& type : neighbours(input, stacks)) {
    for (const FunctionNeighbours& f : type.functions) {
      const std::string name = stacks.name(f.function);
      Json callers = Json::array({Json::array({json_text(name), f.inclusive})});
      append_tree_rows(callers, f.callers, FunctionTree::kRoot, 1, f.inclusive,
                       shape(input, stacks, type, false));
      out.tables.push_back(
          html_table(fmt::format("callers-{}-{}", type.totals->type.type, f.function),
                     fmt::format("Callers of {} ({}, {})", name, type.totals->type.type,
                                 cost_weight_title(weight)),
                     "the function, the paths of its callers indented beneath it",
                     Json::array({Json::array({"text", "function"}), Json::array({kind, "cost"})}),
                     std::move(callers)));
      Json callees = Json::array({Json::array({json_text(name), f.inclusive, f.self})});
      append_tree_rows(callees, f.callees, FunctionTree::kRoot, 1, f.inclusive,
                       shape(input, stacks, type, true));
      out.tables.push_back(
          html_table(fmt::format("callees-{}-{}", type.totals->type.type, f.function),
                     fmt::format("Callees of {} ({}, {})", name, type.totals->type.type,
                                 cost_weight_title(weight)),
                     "the function, the paths it calls indented beneath it",
                     Json::array({Json::array({"text", "function"}),
                                  Json::array({kind, "inclusive"}), Json::array({kind, "self"})}),
                     std::move(callees)));
    }
  }
}

}  // namespace

ReportSection callers_callees_section() {
  return {.name = "callers_callees", .text = text, .json = json, .html = html};
}

}  // namespace rtrace::reports
