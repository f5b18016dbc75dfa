// The allocation call graph as Graphviz dot: one node per function, an edge from caller to
// callee weighing what was allocated through that call (--weight), labels in human units.
// A stack counts once per node and per edge, also when it recurses.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <unordered_map>

#include "exports/allocation_profile.h"
#include "exports/stack_exports.h"
#include "io/terminal_text.h"

namespace rtrace::exporters {
namespace {

// dot's quoted strings: backslash and double quote escaped, a newline as dot's centred line
// break "\n", other control characters (from names in the trace) as `\xHH`.
std::string dot_string(std::string_view text) {
  std::string quoted = "\"";
  for (const char c : terminal_safe_lines(text)) {
    if (c == '\n') {
      quoted += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') {
      quoted += '\\';
    }
    quoted += c == '\r' ? ' ' : c;
  }
  return quoted + '"';
}

class CallgraphExport final : public AllocationProfile {
 public:
  CallgraphExport(OutputStream& out, const ExportOptions& options)
      : out_(out), weight_(parse_weight(options.weight)), type_name_(options.resource_type) {}

  void finish() override {
    settle();
    aggregate();
    const std::uint64_t total = total_;
    out_.buffer() += fmt::format(
        "digraph rtrace {{\n  graph [label={}, labelloc=t];\n"
        "  node [shape=box, style=filled, fontname=\"sans-serif\"];\n",
        dot_string(fmt::format("{} {} of {}", human_weight(total, weight_), type_label_,
                               process_name().empty() ? "the trace" : process_name())));
    for (std::size_t id = 0; id < names_.size(); ++id) {
      const Node& node = nodes_[id];
      out_.buffer() +=
          fmt::format("  f{} [label={}, fillcolor=\"{}\"];\n", id,
                      dot_string(fmt::format("{}\n{} ({:.1f}%)\nself {}", names_[id],
                                             human_weight(node.total, weight_), percent(node.total),
                                             human_weight(node.self, weight_))),
                      colour(node.total));
      out_.maybe_flush();
    }
    for (const auto& [edge, value] : edges_) {
      out_.buffer() += fmt::format(
          "  f{} -> f{} [label={}, weight={}, penwidth={:.2f}];\n", edge.first, edge.second,
          dot_string(human_weight(value, weight_)), value, 1.0 + 4.0 * percent(value) / 100.0);
      out_.maybe_flush();
    }
    out_.buffer() += "}\n";
    out_.flush();
  }

 private:
  struct Node {
    std::uint64_t total = 0;  // through this function
    std::uint64_t self = 0;   // allocated by it directly
  };

  void aggregate() {
    const TypeProfile* type = chosen_type(type_name_);
    if (type == nullptr) {
      return;
    }
    type_label_ = type->type.type;
    for (const Site& site : sites()) {
      const std::uint64_t value = site.weight(weight_);
      if (site.type != effective_resource_type(type->type.id) || value == 0) {
        continue;
      }
      total_ += value;
      std::vector<std::uint32_t> path;  // outermost first
      for (const std::string& name : stack_names(site)) {
        path.push_back(node_id(name));
      }
      nodes_[path.back()].self += value;
      for (const std::uint32_t id : std::set<std::uint32_t>(path.begin(), path.end())) {
        nodes_[id].total += value;
      }
      std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
      for (std::size_t i = 0; i + 1 < path.size(); ++i) {
        if (seen.insert({path[i], path[i + 1]}).second) {
          edges_[{path[i], path[i + 1]}] += value;
        }
      }
    }
  }

  std::uint32_t node_id(const std::string& name) {
    const auto [found, added] = ids_.try_emplace(name, static_cast<std::uint32_t>(names_.size()));
    if (added) {
      names_.push_back(name);
      nodes_.emplace_back();
    }
    return found->second;
  }

  double percent(std::uint64_t value) const {
    return total_ == 0 ? 0.0 : 100.0 * static_cast<double>(value) / static_cast<double>(total_);
  }

  // Warmer for more: white for nothing, red for everything.
  std::string colour(std::uint64_t value) const {
    const auto shade = static_cast<int>(percent(value) / 100.0 * 6.0);
    static constexpr std::array<const char*, 7> kShades{"#ffffff", "#fff0e0", "#ffe0c0", "#ffc8a0",
                                                        "#ffa880", "#ff8060", "#ff5040"};
    return kShades[std::clamp(shade, 0, 6)];
  }

  OutputStream& out_;
  Weight weight_;
  std::string type_name_;
  std::string type_label_ = "nothing";
  std::uint64_t total_ = 0;
  std::unordered_map<std::string, std::uint32_t> ids_;
  std::vector<std::string> names_;
  std::vector<Node> nodes_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> edges_;
};

}  // namespace

ExportInfo callgraph_export() {
  return {
      .name = "callgraph",
      .description = "Graphviz dot allocation call graph (dot -Tsvg), --weight",
      .suffix = ".dot",
      .open = [](OutputStream& out, const ExportOptions& options) -> std::unique_ptr<TraceSink> {
        return std::make_unique<CallgraphExport>(out, options);
      }};
}

}  // namespace rtrace::exporters
