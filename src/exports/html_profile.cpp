#include "exports/html_profile.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <unordered_map>
#include <vector>

#include "reports/json_layout.h"

namespace rtrace::exporters {
namespace {

using reports::json_text;
using reports::JsonWriter;

// Writes `values` separated by commas (the caller writes the brackets).
template <typename... Values>
void write_numbers(JsonWriter& writer, bool first, Values... values) {
  ((writer.punctuation(first ? "" : ","), writer.value(values), first = false), ...);
}

constexpr std::array kWeights{Weight::Allocated, Weight::Leaked, Weight::Peak, Weight::Count};
using Weights = std::array<std::uint64_t, kWeights.size()>;

// The type's kept points, evenly spread, with the peak itself among them (thinning may have
// dropped it), in call order.
std::vector<TimelinePoint> timeline_with_peak(const TypeProfile& type) {
  std::vector<TimelinePoint> points =
      spread(type.timeline.points(), HtmlProfile::kTimelinePoints - 1);
  const TimelinePoint peak{.time_ns = type.peak_time_ns,
                           .index = type.peak_index,
                           .value = type.peak_bytes,
                           .blocks = type.peak_blocks};
  const auto at =
      std::lower_bound(points.begin(), points.end(), peak.index,
                       [](const TimelinePoint& p, std::uint64_t index) { return p.index < index; });
  if (type.peak_bytes > 0 && (at == points.end() || at->index != peak.index)) {
    points.insert(at, peak);
  }
  return points;
}

// Every frame name once, for the trees to refer to by index.
class NameTable {
 public:
  std::uint32_t id(const std::string& name) {
    const auto [found, added] = ids_.try_emplace(name, static_cast<std::uint32_t>(names_.size()));
    if (added) {
      names_.push_back(name);
    }
    return found->second;
  }
  void write(JsonWriter& writer) const {
    writer.punctuation("[");
    for (std::size_t i = 0; i < names_.size(); ++i) {
      writer.punctuation(i == 0 ? "" : ",");
      writer.value(json_text(names_[i]));
    }
    writer.punctuation("]");
  }

 private:
  std::unordered_map<std::string, std::uint32_t> ids_;
  std::vector<std::string> names_;
};

// One type's frame tree, all four weights at once; sibling frames of one name merge.
class WeightedTree {
 public:
  explicit WeightedTree(NameTable& names) : names_(names) {
    nodes_.push_back({.name = names_.id("all")});
  }

  void add(const std::vector<std::string>& stack, const Weights& weights) {
    std::uint32_t node = 0;
    accumulate(node, weights);
    for (const std::string& frame : stack) {
      const std::uint32_t name = names_.id(frame);
      const std::uint64_t key = static_cast<std::uint64_t>(node) << 32 | name;
      const auto [found, added] =
          child_of_.try_emplace(key, static_cast<std::uint32_t>(nodes_.size()));
      if (added) {
        nodes_[node].children.push_back(found->second);
        nodes_.push_back({.name = name});
      }
      node = found->second;
      accumulate(node, weights);
    }
  }

  // depth, name, weights... per node, depth first (iterative: stacks may be deep).
  void write_nodes(JsonWriter& writer) const {
    writer.punctuation("[");
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pending{{0, 0}};  // node, depth
    bool first = true;
    while (!pending.empty()) {
      const auto [index, depth] = pending.back();
      pending.pop_back();
      const Node& node = nodes_[index];
      write_numbers(writer, first, depth, node.name, node.weights[0], node.weights[1],
                    node.weights[2], node.weights[3]);
      first = false;
      for (auto child = node.children.rbegin(); child != node.children.rend(); ++child) {
        pending.emplace_back(*child, depth + 1);
      }
    }
    writer.punctuation("]");
  }

 private:
  struct Node {
    std::uint32_t name = 0;
    Weights weights{};
    std::vector<std::uint32_t> children{};
  };

  void accumulate(std::uint32_t node, const Weights& weights) {
    for (std::size_t w = 0; w < weights.size(); ++w) {
      nodes_[node].weights[w] += weights[w];
    }
  }

  NameTable& names_;
  std::vector<Node> nodes_;
  std::unordered_map<std::uint64_t, std::uint32_t> child_of_;  // parent << 32 | name -> child
};

}  // namespace

void HtmlProfile::append_timelines_json(std::string& out) const {
  const auto relative = [&](std::uint64_t time_ns) {
    return time_ns >= first_time_ns() ? time_ns - first_time_ns() : 0;
  };
  JsonWriter writer(out);
  writer.punctuation("[");
  bool first_type = true;
  for (const TypeProfile* type : types()) {
    if (type->allocations == 0) {
      continue;
    }
    writer.punctuation(first_type ? "{" : ",{");
    first_type = false;
    writer.key("type");
    writer.value(json_text(type->type.type));
    writer.punctuation(",");
    writer.key("peak");
    writer.punctuation("[");
    write_numbers(writer, true, relative(type->peak_time_ns), type->peak_index, type->peak_bytes,
                  type->peak_blocks);
    writer.punctuation("],");
    writer.key("points");
    writer.punctuation("[");
    bool first = true;
    for (const TimelinePoint& p : timeline_with_peak(*type)) {
      write_numbers(writer, first, relative(p.time_ns), p.index, p.value, p.blocks);
      first = false;
    }
    writer.punctuation("]}");
  }
  writer.punctuation("]");
}

void HtmlProfile::append_flame_json(std::string& out) const {
  // The trees are written first (apart), as they name their frames; the names then go before
  // them.
  NameTable names;
  std::string trees;
  JsonWriter trees_writer(trees);
  for (const TypeProfile* type : types()) {
    if (type->allocations == 0) {
      continue;
    }
    WeightedTree tree(names);
    const std::uint32_t id = effective_resource_type(type->type.id);
    for (const Site& site : sites()) {
      if (site.type == id) {
        Weights weights{};
        std::transform(kWeights.begin(), kWeights.end(), weights.begin(),
                       [&](Weight w) { return site.weight(w); });
        tree.add(stack_names(site), weights);
      }
    }
    trees_writer.punctuation(trees.empty() ? "{" : ",{");
    trees_writer.key("type");
    trees_writer.value(json_text(type->type.type));
    trees_writer.punctuation(",");
    trees_writer.key("nodes");
    tree.write_nodes(trees_writer);
    trees_writer.punctuation("}");
  }
  JsonWriter writer(out);
  writer.punctuation("{");
  writer.key("names");
  names.write(writer);
  writer.punctuation(",");
  writer.key("trees");
  writer.punctuation("[");
  writer.punctuation(trees);
  writer.punctuation("]}");
}

}  // namespace rtrace::exporters
