#include "reports/allocation_sites.h"

#include <fnmatch.h>

#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "model/seeded_hash.h"
#include "model/sequence_hash.h"
#include "model/sequence_table.h"

namespace rtrace::reports {
namespace {

bool matches_any(const std::vector<std::string>& patterns, const std::string& text) {
  return !text.empty() && std::ranges::any_of(patterns, [&](const std::string& pattern) {
    return ::fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
  });
}

std::string_view base_name(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool tracer_module(std::string_view module) {
  const std::string_view name = base_name(module);
  return name.starts_with("librtrace-") || name.starts_with("libsp-rtrace");
}

auto rank(const SiteAmounts& a) {
  return std::tuple(a.peak_bytes, a.leaked_bytes, a.bytes_allocated, a.allocations);
}

void sort_callers(std::vector<CallerNode>& callers) {
  std::ranges::stable_sort(callers, [](const CallerNode& a, const CallerNode& b) {
    return rank(a.amounts) > rank(b.amounts);
  });
  for (CallerNode& caller : callers) {
    sort_callers(caller.callers);
  }
}

LogicalFrame no_frame_outside() {
  return LogicalFrame{.label = "(no frame outside the allocator)"};
}

// Each distinct frame of a report expanded into its logical frames once (frame_text.h), each
// logical frame numbered by its key (equal keys, one number) and marked when it belongs to the
// allocator or a wrapper: the sites and their callers are then walked as numbers, whatever the
// number of backtraces that pass through a frame.
class LogicalFrameTable {
 public:
  LogicalFrameTable(const ReportData& data, const std::vector<std::string>& wrappers)
      : data_(data), wrappers_(wrappers), of_frame_(data.frame_descriptions->size()) {}

  struct Expanded {
    std::vector<std::uint32_t> ids{};  // by key, innermost first
    std::vector<bool> allocator{};     // parallel to ids
    bool done = false;
  };

  // The logical frames of the report's frame `index`, expanded at its first use.
  const Expanded& of(std::uint32_t index) {
    Expanded& expanded = of_frame_[index];
    if (!expanded.done) {
      expanded.done = true;
      for (LogicalFrame& frame : logical_frames((*data_.frame_descriptions)[index].detail)) {
        expanded.allocator.push_back(allocator_frame(frame, wrappers_));
        expanded.ids.push_back(id_of(std::move(frame)));
      }
    }
    return expanded;
  }
  const std::shared_ptr<const LogicalFrame>& frame(std::uint32_t id) const { return frames_[id]; }

 private:
  std::uint32_t id_of(LogicalFrame frame) {
    const auto [found, added] =
        ids_.try_emplace(frame.key, static_cast<std::uint32_t>(frames_.size()));
    if (added) {
      frames_.push_back(std::make_shared<const LogicalFrame>(std::move(frame)));
    }
    return found->second;
  }

  const ReportData& data_;
  const std::vector<std::string>& wrappers_;
  std::vector<Expanded> of_frame_;                           // by the report's frame index
  std::vector<std::shared_ptr<const LogicalFrame>> frames_;  // by id
  std::unordered_map<std::string, std::uint32_t> ids_;       // key -> id
};

// Where a site's first logical frame outside the allocator lies: the node of its frame and its
// position among that frame's logical frames (none: the root).
struct SitePosition {
  CallingContextTree::NodeId node = CallingContextTree::kRoot;
  std::size_t logical = 0;
};

SitePosition site_position(const ReportData& data, LogicalFrameTable& frames,
                           CallingContextTree::NodeId node) {
  for (; node != CallingContextTree::kRoot; node = data.tree->parent(node)) {
    const LogicalFrameTable::Expanded& expanded = frames.of(data.tree->frame_index(node));
    for (std::size_t i = 0; i < expanded.ids.size(); ++i) {
      if (!expanded.allocator[i]) {
        return {.node = node, .logical = i};
      }
    }
  }
  return {};
}

// The caller trees of the sites shown, built one level of callers at a time: every backtrace of
// a site is a path that moves out by one caller per level, and a caller that holds less than the
// share asked of every amount of its site is left out with everything beyond it (its paths stop
// there). Memory follows the callers kept and the backtraces, not the whole tree of callers (a
// site of a program with a million distinct backtraces has millions of them). Callers are found
// by hash rather than by a scan of their siblings, and refer to their logical frame by number.
class CallerTrees {
 public:
  CallerTrees(const ReportData& data, LogicalFrameTable& frames, double min_share)
      : data_(data),
        frames_(frames),
        min_share_(min_share),
        hash_(hash_seed()),
        slots_(kFirstSlots, kEmpty) {}

  // A new tree for a site with these amounts; returns its root.
  std::uint32_t add_root(const SiteAmounts& amounts) {
    const auto root = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back(Node{.parent = root, .root = root, .amounts = amounts});
    return root;
  }

  // The backtrace of `site`, whose callers begin after its site frame at `position`, goes
  // beneath `root`.
  void add_path(std::uint32_t root, std::size_t site, const SitePosition& position) {
    if (position.node != CallingContextTree::kRoot) {
      paths_.push_back(Path{.site = site,
                            .node = position.node,
                            .logical = static_cast<std::uint32_t>(position.logical + 1),
                            .caller = root});
    }
  }

  // Every level of callers, until no path goes further.
  void build() {
    while (!paths_.empty()) {
      const std::size_t first_new = nodes_.size();
      std::size_t kept = 0;
      for (Path& path : paths_) {
        const std::optional<std::uint32_t> frame = next_frame(path);
        if (!frame) {
          continue;  // the outermost caller was reached
        }
        path.caller = child(path.caller, *frame);
        nodes_[path.caller].amounts.add(data_.sites[path.site]);
        paths_[kept++] = path;
      }
      paths_.resize(kept);
      for (std::size_t node = first_new; node < nodes_.size(); ++node) {
        if (!big_enough(nodes_[node])) {
          nodes_[node].left_out = true;
          ++nodes_[nodes_[node].parent].hidden;
        }
      }
      std::erase_if(paths_, [&](const Path& p) { return nodes_[p.caller].left_out; });
    }
    paths_ = {};
    slots_ = {};
  }

  // The callers kept beneath `node` as nested CallerNodes; how many were left out in `hidden`.
  std::vector<CallerNode> take_callers(std::uint32_t node, std::size_t& hidden) {
    hidden = nodes_[node].hidden;
    std::vector<std::uint32_t> children = std::move(nodes_[node].children);
    std::vector<CallerNode> callers;
    for (const std::uint32_t child : children) {
      if (nodes_[child].left_out) {
        continue;
      }
      CallerNode& caller = callers.emplace_back(CallerNode{
          .frame = frames_.frame(nodes_[child].frame), .amounts = nodes_[child].amounts});
      caller.callers = take_callers(child, caller.hidden);
    }
    return callers;
  }

 private:
  struct Node {
    std::uint32_t parent = 0;  // itself for a root
    std::uint32_t frame = 0;   // a logical frame's number; unused for roots
    std::uint32_t root = 0;    // the root of its tree
    bool left_out = false;
    std::size_t hidden = 0;  // children left out
    SiteAmounts amounts{};
    std::vector<std::uint32_t> children{};
  };
  // A backtrace on its way out: the next caller is the logical frame `logical` of the frame of
  // `node` (or the first of a caller's, when that frame has no more).
  struct Path {
    std::size_t site = 0;  // in data_.sites
    CallingContextTree::NodeId node = CallingContextTree::kRoot;
    std::uint32_t logical = 0;
    std::uint32_t caller = 0;  // where the path is in its tree
  };
  static constexpr std::uint32_t kEmpty = ~std::uint32_t{0};
  static constexpr std::size_t kFirstSlots = 1024;

  std::optional<std::uint32_t> next_frame(Path& path) {
    while (path.node != CallingContextTree::kRoot) {
      const LogicalFrameTable::Expanded& expanded = frames_.of(data_.tree->frame_index(path.node));
      if (path.logical < expanded.ids.size()) {
        return expanded.ids[path.logical++];
      }
      path.node = data_.tree->parent(path.node);
      path.logical = 0;
    }
    return std::nullopt;
  }

  // Whether a caller holds at least the share asked of some amount of its site.
  bool big_enough(const Node& node) const {
    const SiteAmounts& site = nodes_[node.root].amounts;
    const SiteAmounts& a = node.amounts;
    const auto holds = [&](std::uint64_t part, std::uint64_t whole) {
      return part > 0 && static_cast<double>(part) >= min_share_ * static_cast<double>(whole);
    };
    return holds(a.allocations, site.allocations) ||
           holds(a.bytes_allocated, site.bytes_allocated) || holds(a.peak_bytes, site.peak_bytes) ||
           holds(a.leaked_bytes, site.leaked_bytes);
  }

  // Keyed with the process's secret (the numbers follow the trace's frames).
  std::uint64_t hash(std::uint32_t parent, std::uint32_t frame) const {
    const std::array<std::uint64_t, 1> key{std::uint64_t{parent} << 32 | frame};
    return hash_(std::span<const std::uint64_t>(key),
                 [](std::uint64_t value) { return sequence_words(value); });
  }

  std::uint32_t child(std::uint32_t parent, std::uint32_t frame) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = hash(parent, frame) & mask;
    for (; slots_[i] != kEmpty; i = (i + 1) & mask) {
      const Node& known = nodes_[slots_[i]];
      if (known.parent == parent && known.frame == frame) {
        return slots_[i];
      }
    }
    const auto node = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back(Node{.parent = parent, .frame = frame, .root = nodes_[parent].root});
    nodes_[parent].children.push_back(node);
    slots_[i] = node;
    if (++placed_ * 2 > slots_.size()) {
      grow();
    }
    return node;
  }

  void grow() {
    slots_.assign(slots_.size() * 2, kEmpty);
    const std::size_t mask = slots_.size() - 1;
    for (std::uint32_t node = 0; node < nodes_.size(); ++node) {
      if (nodes_[node].parent == node) {
        continue;  // a root
      }
      std::size_t i = hash(nodes_[node].parent, nodes_[node].frame) & mask;
      while (slots_[i] != kEmpty) {
        i = (i + 1) & mask;
      }
      slots_[i] = node;
    }
  }

  const ReportData& data_;
  LogicalFrameTable& frames_;
  double min_share_;
  SequenceHash hash_;
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> slots_;  // open addressing: the child of (parent, frame)
  std::size_t placed_ = 0;
  std::vector<Path> paths_;
};

}  // namespace

void SiteAmounts::add(const SiteStats& stats) {
  allocations += stats.allocations;
  bytes_allocated += stats.bytes_allocated;
  if (!stats.suppressed) {
    leaked_blocks += stats.leaked_blocks;
    leaked_bytes += stats.leaked_bytes;
  }
  peak_bytes += stats.peak_bytes;
}

const std::vector<std::string>& allocator_patterns() {
  static const std::vector<std::string> patterns{
      "malloc",         "calloc",        "realloc",       "reallocarray",     "free",    "memalign",
      "posix_memalign", "aligned_alloc", "valloc",        "pvalloc",          "strdup",  "strndup",
      "__strdup",       "__strndup",     "operator new*", "operator delete*", "__libc_*"};
  return patterns;
}

bool allocator_frame(const LogicalFrame& frame, const std::vector<std::string>& wrappers) {
  return tracer_module(frame.module) || matches_any(allocator_patterns(), frame.function) ||
         matches_any(wrappers, frame.function) || matches_any(wrappers, frame.module);
}

std::vector<AllocationSite> allocation_sites(const ReportData& data,
                                             const std::vector<std::string>& wrappers,
                                             std::size_t with_callers, double min_share) {
  // The sites and their amounts first: only the site frame of each backtrace is needed.
  LogicalFrameTable frames(data, wrappers);
  std::vector<AllocationSite> sites;
  std::vector<std::size_t> site_of(data.sites.size(), sites.max_size());  // by index in data.sites
  std::vector<SitePosition> position_of(data.sites.size());               // by index in data.sites
  std::unordered_map<std::uint64_t, std::size_t> index_of;  // type << 32 | frame -> index in sites
  constexpr std::uint32_t kNoFrameOutside = ~std::uint32_t{0};
  for (std::size_t i = 0; i < data.sites.size(); ++i) {
    const SiteStats& stats = data.sites[i];
    if (stats.allocations == 0) {
      continue;
    }
    const SitePosition position = site_position(data, frames, stats.node);
    const std::uint32_t frame =
        position.node == CallingContextTree::kRoot
            ? kNoFrameOutside
            : frames.of(data.tree->frame_index(position.node)).ids[position.logical];
    const auto [index, added] =
        index_of.try_emplace(std::uint64_t{stats.type} << 32 | frame, sites.size());
    if (added) {
      sites.push_back(AllocationSite{
          .type = stats.type,
          .frame = frame == kNoFrameOutside ? no_frame_outside() : *frames.frame(frame)});
    }
    sites[index->second].amounts.add(stats);
    site_of[i] = index->second;
    position_of[i] = position;
  }
  index_of = {};
  std::vector<std::size_t> order(sites.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
  }
  std::ranges::stable_sort(order, [&](std::size_t a, std::size_t b) {
    return rank(sites[a].amounts) > rank(sites[b].amounts);
  });

  // Then the caller trees, of the first `with_callers` sites of each type only: a trace of
  // thousands of sites shows ten, and the trees cost a node per distinct caller path.
  constexpr std::uint32_t kNoTree = ~std::uint32_t{0};
  std::vector<std::uint32_t> root_of(sites.size(), kNoTree);  // by index in sites
  CallerTrees trees(data, frames, min_share);
  std::unordered_map<std::uint32_t, std::size_t> chosen_of_type;
  for (const std::size_t index : order) {
    std::size_t& chosen = chosen_of_type[sites[index].type];
    if (chosen < with_callers) {
      ++chosen;
      root_of[index] = trees.add_root(sites[index].amounts);
    }
  }
  for (std::size_t i = 0; i < data.sites.size(); ++i) {
    if (site_of[i] < sites.size() && root_of[site_of[i]] != kNoTree) {
      trees.add_path(root_of[site_of[i]], i, position_of[i]);
    }
  }
  position_of = {};
  trees.build();

  std::vector<AllocationSite> ranked;
  ranked.reserve(sites.size());
  for (const std::size_t index : order) {
    AllocationSite& site = ranked.emplace_back(std::move(sites[index]));
    if (root_of[index] != kNoTree) {
      site.callers = trees.take_callers(root_of[index], site.hidden);
      sort_callers(site.callers);
    }
  }
  return ranked;
}

}  // namespace rtrace::reports
