#include "reports/call_tree_text.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <iterator>
#include <span>

#include "reports/human_units.h"

namespace rtrace::reports {
namespace {

// The children of `parent` shown: the first `children` of those over the share, in order; the
// others are `hidden`.
struct ShownChildren {
  std::span<const FunctionTree::NodeId> nodes;
  std::size_t hidden = 0;
};

ShownChildren shown_children(const FunctionTree& tree, FunctionTree::NodeId parent,
                             std::uint64_t entry_cost, const TreeShape& shape) {
  const std::vector<FunctionTree::NodeId>& all = tree.node(parent).children;
  const double least = shape.options.callers_min_share * static_cast<double>(entry_cost);
  std::size_t shown = 0;
  // Children come most costly first: the first one under the share ends the shown ones.
  while (shown < all.size() && shown < shape.options.trees.children &&
         static_cast<double>(tree.node(all[shown]).inclusive) >= least) {
    ++shown;
  }
  return {.nodes = std::span(all).first(shown), .hidden = all.size() - shown};
}

void append_level(std::string& out, const FunctionTree& tree, FunctionTree::NodeId parent,
                  std::size_t indent, std::size_t depth, std::uint64_t entry_cost,
                  const TreeShape& shape) {
  const ShownChildren children = shown_children(tree, parent, entry_cost, shape);
  const std::string spaces(indent, ' ');
  for (const FunctionTree::NodeId id : children.nodes) {
    const FunctionTree::Node& node = tree.node(id);
    fmt::format_to(std::back_inserter(out), "{}{}  {}{}\n", spaces,
                   cost_text(node.inclusive, shape.options.trees.weight, shape.unit),
                   shown_name(shape.stacks.name(node.function), shape.options),
                   shape.with_self && node.self != 0
                       ? ", self " + cost_text(node.self, shape.options.trees.weight, shape.unit)
                       : "");
    if (depth + 1 < shape.options.trees.depth) {
      const bool branch = children.nodes.size() + children.hidden > 1 || node.children.size() > 1;
      append_level(out, tree, id, branch ? indent + 2 : indent, depth + 1, entry_cost, shape);
    } else if (!node.children.empty()) {
      fmt::format_to(std::back_inserter(out), "{}  ... {} more beneath (--depth)\n", spaces,
                     node.children.size());
    }
  }
  if (children.hidden != 0) {
    fmt::format_to(std::back_inserter(out), "{}... {} more\n", spaces, children.hidden);
  }
}

}  // namespace

std::string cost_text(std::uint64_t cost, CostWeight weight, const ResourceUnit& unit) {
  if (!cost_weight_is_size(weight)) {
    return std::to_string(cost);
  }
  return unit.sized ? human_bytes(cost) : unit.count(cost);
}

void append_tree_text(std::string& out, const FunctionTree& tree, FunctionTree::NodeId parent,
                      std::size_t indent, std::uint64_t entry_cost, const TreeShape& shape) {
  if (shape.options.trees.depth != 0) {
    append_level(out, tree, parent, indent, 0, entry_cost, shape);
  }
}

namespace {

Json json_level(const FunctionTree& tree, FunctionTree::NodeId parent, std::size_t depth,
                std::uint64_t entry_cost, const TreeShape& shape) {
  Json list = Json::array();
  const ShownChildren children = shown_children(tree, parent, entry_cost, shape);
  for (const FunctionTree::NodeId id : children.nodes) {
    const FunctionTree::Node& node = tree.node(id);
    Json item;
    item["function"] = json_text(shown_name(shape.stacks.name(node.function), shape.options));
    item["inclusive"] = node.inclusive;
    if (shape.with_self) {
      item["self"] = node.self;
    }
    if (depth + 1 < shape.options.trees.depth) {
      item[shape.children_member] = json_level(tree, id, depth + 1, entry_cost, shape);
    } else {
      item[shape.children_member] = Json::array();
      if (!node.children.empty()) {
        item["more"] = node.children.size();  // beneath the depth
      }
    }
    list.push_back(std::move(item));
  }
  if (children.hidden != 0) {
    list.push_back(Json{{"more", children.hidden}});
  }
  return list;
}

void rows_level(Json& rows, const FunctionTree& tree, FunctionTree::NodeId parent,
                std::size_t level, std::size_t depth, std::uint64_t entry_cost,
                const TreeShape& shape) {
  const ShownChildren children = shown_children(tree, parent, entry_cost, shape);
  const std::string indent(2 * level, ' ');
  for (const FunctionTree::NodeId id : children.nodes) {
    const FunctionTree::Node& node = tree.node(id);
    // The page's tables hold names as the trace gives them: its own switch shortens them.
    Json row = Json::array({json_text(indent + shape.stacks.name(node.function)), node.inclusive});
    if (shape.with_self) {
      row.push_back(node.self);
    }
    rows.push_back(std::move(row));
    if (depth + 1 < shape.options.trees.depth) {
      rows_level(rows, tree, id, level + 1, depth + 1, entry_cost, shape);
    }
  }
}

}  // namespace

Json tree_json(const FunctionTree& tree, FunctionTree::NodeId parent, std::uint64_t entry_cost,
               const TreeShape& shape) {
  if (shape.options.trees.depth == 0) {
    return Json::array();
  }
  return json_level(tree, parent, 0, entry_cost, shape);
}

void append_tree_rows(Json& rows, const FunctionTree& tree, FunctionTree::NodeId parent,
                      std::size_t level, std::uint64_t entry_cost, const TreeShape& shape) {
  if (shape.options.trees.depth != 0) {
    rows_level(rows, tree, parent, level, 0, entry_cost, shape);
  }
}

void append_view_text(std::string& out, const CallTreeView& view, CostWeight weight,
                      std::span<const TypeCallTree> trees,
                      const std::function<void(const TypeCallTree&)>& body) {
  fmt::format_to(std::back_inserter(out), "\n{} ({}: {})\n", view.title, cost_weight_title(weight),
                 view.explanation);
  if (trees.empty()) {
    out += "  none\n";
  }
  for (const TypeCallTree& t : trees) {
    fmt::format_to(std::back_inserter(out), "  {}: {} in all\n", t.totals->type.type,
                   cost_text(t.tree.root().inclusive, weight, resource_unit(*t.totals)));
    body(t);
  }
}

void append_view_json(JsonLines& out, const CallTreeView& view, CostWeight weight,
                      std::span<const TypeCallTree> trees,
                      const std::function<void(const TypeCallTree&, Json&)>& members) {
  Json types = Json::array();
  for (const TypeCallTree& t : trees) {
    Json type;
    type["type"] = json_text(t.totals->type.type);
    type["total"] = t.tree.root().inclusive;
    members(t, type);
    types.push_back(std::move(type));
  }
  Json section;
  section["weight"] = cost_weight_name(weight);
  section["types"] = std::move(types);
  out.push_back({{view.member, std::move(section)}});
}

void append_view_tables(HtmlSectionParts& out, const CallTreeView& view, CostWeight weight,
                        std::span<const TypeCallTree> trees,
                        const std::function<Json(const TypeCallTree&)>& rows) {
  const std::string_view kind = cost_weight_is_size(weight) ? "bytes" : "count";
  Json columns = Json::array({Json::array({"text", "function"})});
  for (const std::string_view figure : view.figures) {
    columns.push_back(Json::array({kind, figure}));
  }
  // "BOTTOM-UP" -> "Bottom-up"
  std::string title(view.title);
  for (std::size_t i = 1; i < title.size(); ++i) {
    title[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(title[i])));
  }
  for (const TypeCallTree& t : trees) {
    out.tables.push_back(html_table(
        fmt::format("{}-{}", view.id, t.totals->type.type),
        fmt::format("{}: {} by {}", title, t.totals->type.type, cost_weight_title(weight)),
        view.note, columns, rows(t)));
  }
}

}  // namespace rtrace::reports
