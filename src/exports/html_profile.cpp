#include "exports/html_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/seeded_hash.h"
#include "model/sequence_hash.h"
#include "model/sequence_table.h"
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

// The page's weights, in the order its nodes list them: bytes allocated, leaked bytes, bytes
// alive at the peak, allocations (as the Weight enumeration), then temporary allocations.
constexpr std::size_t kWeightCount = 5;
using Weights = std::array<std::uint64_t, kWeightCount>;

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

// Every frame name once, for the trees to refer to by index, in order of first use.
class NameTable {
 public:
  std::uint32_t id(std::string name) {
    const auto [found, added] =
        ids_.try_emplace(std::move(name), static_cast<std::uint32_t>(names_.size()));
    if (added) {
      names_.push_back(&found->first);
    }
    return found->second;
  }
  std::size_t size() const { return names_.size(); }
  // The names `used` marks, in their order (the trees number them likewise: renumbered()).
  void write(JsonWriter& writer, const std::vector<bool>& used) const {
    writer.punctuation("[");
    bool first = true;
    for (std::size_t i = 0; i < names_.size(); ++i) {
      if (used[i]) {
        writer.punctuation(first ? "" : ",");
        writer.value(json_text(*names_[i]));
        first = false;
      }
    }
    writer.punctuation("]");
  }

 private:
  std::unordered_map<std::string, std::uint32_t> ids_;
  std::vector<const std::string*> names_;  // by id: the keys of ids_ (nodes never move)
};

// How the page names a frame of the report: the function, else the address and the module's
// file name ("0x7f12 in libc.so.6"), else the address.
std::string flame_name(const reports::FrameDetail& frame) {
  if (!frame.symbol.where.function.empty()) {
    return frame.symbol.where.function;
  }
  std::string_view module = frame.symbol.module;
  if (module.empty() && frame.offset) {
    module = frame.module;  // the mapping's path
  }
  if (module.empty()) {
    return fmt::format("{:#x}", frame.address);
  }
  const std::size_t slash = module.rfind('/');
  return fmt::format("{:#x} in {}", frame.address,
                     slash == std::string_view::npos ? module : module.substr(slash + 1));
}

// One type's frame tree, all four weights at once, from the report's calling-context tree:
// sibling frames of one name merge. Each node of the report's tree is mapped to its frame here
// once, and each site's weights go to its own frame only; the sums up the tree are made once at
// the end, so the work follows the nodes, not the frames of every backtrace.
class WeightedTree {
 public:
  WeightedTree(NameTable& names, const reports::ReportData& data,
               std::vector<std::uint32_t>& frame_names)
      : names_(names),
        data_(data),
        frame_names_(frame_names),
        node_of_(data.tree->size(), kNone),
        slots_(kFirstSlots, kNone) {
    nodes_.push_back({.name = names_.id("all")});
    node_of_[reports::CallingContextTree::kRoot] = 0;
  }

  void add(const reports::SiteStats& site, const Weights& weights) {
    const std::uint32_t node = site.node == reports::CallingContextTree::kRoot
                                   ? child(0, names_.id("[no backtrace]"))
                                   : node_of(site.node);
    for (std::size_t w = 0; w < weights.size(); ++w) {
      nodes_[node].weights[w] += weights[w];
    }
  }

  // Once every site is added: each node's weights become those of everything beneath it
  // (children come after their parents).
  void sum() {
    for (std::size_t i = nodes_.size() - 1; i > 0; --i) {
      for (std::size_t w = 0; w < kWeightCount; ++w) {
        nodes_[nodes_[i].parent].weights[w] += nodes_[i].weights[w];
      }
    }
    slots_ = {};
    node_of_ = {};
  }

  // Marks the nodes the page gets: those holding at least `min_share` of the whole tree's figure
  // of some weight, under a parent the page gets. Returns how many were left out.
  std::size_t prune(double min_share) {
    const Weights& all = nodes_[0].weights;
    std::size_t left_out = 0;
    for (std::size_t i = 1; i < nodes_.size(); ++i) {
      Node& node = nodes_[i];
      bool big_enough = false;
      for (std::size_t w = 0; w < kWeightCount; ++w) {
        big_enough =
            big_enough || (node.weights[w] > 0 && static_cast<double>(node.weights[w]) >=
                                                      min_share * static_cast<double>(all[w]));
      }
      node.shown = big_enough && nodes_[node.parent].shown;
      left_out += node.shown ? 0 : 1;
    }
    return left_out;
  }

  void mark_names(std::vector<bool>& used) const {
    for (const Node& node : nodes_) {
      if (node.shown) {
        used[node.name] = true;
      }
    }
  }

  // depth, name, weights... per node shown, depth first (iterative: stacks may be deep); names
  // by their number among the names shown (`renumbered`).
  void write_nodes(JsonWriter& writer, const std::vector<std::uint32_t>& renumbered) const {
    writer.punctuation("[");
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pending{{0, 0}};  // node, depth
    bool first = true;
    while (!pending.empty()) {
      const auto [index, depth] = pending.back();
      pending.pop_back();
      const Node& node = nodes_[index];
      write_numbers(writer, first, depth, renumbered[node.name], node.weights[0], node.weights[1],
                    node.weights[2], node.weights[3], node.weights[4]);
      first = false;
      for (auto child = node.children.rbegin(); child != node.children.rend(); ++child) {
        if (nodes_[*child].shown) {
          pending.emplace_back(*child, depth + 1);
        }
      }
    }
    writer.punctuation("]");
  }

 private:
  struct Node {
    std::uint32_t name = 0;
    std::uint32_t parent = 0;
    Weights weights{};
    std::vector<std::uint32_t> children{};
    bool shown = true;
  };
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  static constexpr std::size_t kFirstSlots = 1024;

  // The node of the report's tree node `cct`, made (with those of its callers) at its first use,
  // outermost first as the backtraces' own order would make them.
  std::uint32_t node_of(reports::CallingContextTree::NodeId cct) {
    std::vector<reports::CallingContextTree::NodeId> missing;
    for (; node_of_[cct] == kNone; cct = data_.tree->parent(cct)) {
      missing.push_back(cct);
    }
    std::uint32_t node = node_of_[cct];
    for (auto m = missing.rbegin(); m != missing.rend(); ++m) {
      node = child(node, name_of(data_.tree->frame_index(*m)));
      node_of_[*m] = node;
    }
    return node;
  }

  std::uint32_t name_of(std::uint32_t frame) {
    if (frame_names_[frame] == kNone) {
      frame_names_[frame] = names_.id(flame_name((*data_.frame_descriptions)[frame].detail));
    }
    return frame_names_[frame];
  }

  // Keyed with the process's secret, as every table of the trace's frames: a trace cannot choose
  // the shape of a tree whose nodes share a probe run.
  std::size_t slot_of(std::uint32_t parent, std::uint32_t name, std::size_t mask) const {
    const std::array<std::uint64_t, 1> key{std::uint64_t{parent} << 32 | name};
    return static_cast<std::size_t>(hash_(std::span<const std::uint64_t>(key),
                                          [](std::uint64_t v) { return sequence_words(v); })) &
           mask;
  }

  std::uint32_t child(std::uint32_t parent, std::uint32_t name) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = slot_of(parent, name, mask);
    for (; slots_[i] != kNone; i = (i + 1) & mask) {
      if (nodes_[slots_[i]].parent == parent && nodes_[slots_[i]].name == name) {
        return slots_[i];
      }
    }
    const auto node = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back({.name = name, .parent = parent});
    nodes_[parent].children.push_back(node);
    slots_[i] = node;
    if (nodes_.size() * 2 > slots_.size()) {
      slots_.assign(slots_.size() * 2, kNone);
      const std::size_t wider = slots_.size() - 1;
      for (std::uint32_t n = 1; n < nodes_.size(); ++n) {
        std::size_t j = slot_of(nodes_[n].parent, nodes_[n].name, wider);
        while (slots_[j] != kNone) {
          j = (j + 1) & wider;
        }
        slots_[j] = n;
      }
    }
    return node;
  }

  NameTable& names_;
  const reports::ReportData& data_;
  SequenceHash hash_{hash_seed()};
  std::vector<std::uint32_t>& frame_names_;  // by the report's frame index: the name's id
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> node_of_;  // by the report's tree node: the node here
  std::vector<std::uint32_t> slots_;    // open addressing: the child of (parent, name)
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

void HtmlProfile::append_flame_json(std::string& out, const reports::ReportData& data,
                                    double min_share) const {
  // The trees are written first (apart), as they name their frames; the names then go before
  // them.
  NameTable names;
  std::vector<std::uint32_t> frame_names(data.frame_descriptions->size(), ~std::uint32_t{0});
  std::vector<const TypeProfile*> shown;
  std::vector<WeightedTree> trees;
  std::size_t left_out = 0;
  for (const TypeProfile* type : types()) {
    if (type->allocations == 0) {
      continue;
    }
    WeightedTree& tree = trees.emplace_back(names, data, frame_names);
    shown.push_back(type);
    const std::uint32_t id = effective_resource_type(type->type.id);
    for (const reports::SiteStats& site : data.sites) {
      if (site.type == id) {
        tree.add(site, {site.bytes_allocated, site.leaked_bytes, site.peak_bytes, site.allocations,
                        site.temporary});
      }
    }
    tree.sum();
    left_out += tree.prune(min_share);
  }
  std::vector<bool> used(names.size(), false);
  for (const WeightedTree& tree : trees) {
    tree.mark_names(used);
  }
  std::vector<std::uint32_t> renumbered(names.size(), 0);
  std::uint32_t next = 0;
  for (std::size_t i = 0; i < used.size(); ++i) {
    renumbered[i] = used[i] ? next++ : 0;
  }
  std::string written;
  JsonWriter trees_writer(written);
  for (std::size_t t = 0; t < trees.size(); ++t) {
    trees_writer.punctuation(written.empty() ? "{" : ",{");
    trees_writer.key("type");
    trees_writer.value(json_text(shown[t]->type.type));
    trees_writer.punctuation(",");
    trees_writer.key("nodes");
    trees[t].write_nodes(trees_writer, renumbered);
    trees_writer.punctuation("}");
  }
  JsonWriter writer(out);
  writer.punctuation("{");
  writer.key("names");
  names.write(writer, used);
  writer.punctuation(",");
  writer.key("trees");
  writer.punctuation("[");
  writer.punctuation(written);
  writer.punctuation("]");
  if (left_out > 0) {
    // What the page leaves out, for it to say so.
    writer.punctuation(",");
    writer.key("pruned");
    writer.punctuation("{");
    writer.key("nodes");
    writer.value(left_out);
    writer.punctuation(",");
    writer.key("min_share");
    writer.value(min_share);
    writer.punctuation("}");
  }
  writer.punctuation("}");
}

}  // namespace rtrace::exporters
