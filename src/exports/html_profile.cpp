#include "exports/html_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <unordered_map>
#include <vector>

#include "io/json_string.h"

namespace rtrace::exporters {
namespace {

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
  std::string json() const {
    std::string out = "[";
    for (std::size_t i = 0; i < names_.size(); ++i) {
      out += (i == 0 ? "" : ",") + json_string(names_[i]);
    }
    return out + "]";
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
  std::string nodes_json() const {
    std::string out = "[";
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pending{{0, 0}};  // node, depth
    bool first = true;
    while (!pending.empty()) {
      const auto [index, depth] = pending.back();
      pending.pop_back();
      const Node& node = nodes_[index];
      fmt::format_to(std::back_inserter(out), "{}{},{},{},{},{},{}", first ? "" : ",", depth,
                     node.name, node.weights[0], node.weights[1], node.weights[2], node.weights[3]);
      first = false;
      for (auto child = node.children.rbegin(); child != node.children.rend(); ++child) {
        pending.emplace_back(*child, depth + 1);
      }
    }
    return out + "]";
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

std::string HtmlProfile::timelines_json() const {
  std::string out = "[";
  bool first_type = true;
  for (const TypeProfile* type : types()) {
    if (type->allocations == 0) {
      continue;
    }
    const auto relative = [&](std::uint64_t time_ns) {
      return time_ns >= first_time_ns() ? time_ns - first_time_ns() : 0;
    };
    std::string points;
    for (const TimelinePoint& p : timeline_with_peak(*type)) {
      fmt::format_to(std::back_inserter(points), "{}{},{},{},{}", points.empty() ? "" : ",",
                     relative(p.time_ns), p.index, p.value, p.blocks);
    }
    fmt::format_to(std::back_inserter(out), R"({}{{"type":{},"peak":[{},{},{},{}],"points":[{}]}})",
                   first_type ? "" : ",", json_string(type->type.type),
                   relative(type->peak_time_ns), type->peak_index, type->peak_bytes,
                   type->peak_blocks, points);
    first_type = false;
  }
  return out + "]";
}

std::string HtmlProfile::flame_json() const {
  NameTable names;
  std::string trees;
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
    fmt::format_to(std::back_inserter(trees), R"({}{{"type":{},"nodes":{}}})",
                   trees.empty() ? "" : ",", json_string(type->type.type), tree.nodes_json());
  }
  return fmt::format(R"({{"names":{},"trees":[{}]}})", names.json(), trees);
}

}  // namespace rtrace::exporters
