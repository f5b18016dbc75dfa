#include "reports/allocation_sites.h"

#include <fnmatch.h>

#include <algorithm>
#include <string_view>
#include <tuple>
#include <unordered_map>

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

// The caller trees of every site, built in one flat table where a caller is found by hash
// rather than by a scan of its siblings (a site may have many thousands of callers), then turned
// into nested CallerNodes. Each distinct frame (by key) is stored once and nodes refer to it by
// number: the table costs a few words per node, however long the frames' names.
class CallerTrees {
 public:
  // A new tree (one per site); returns its root.
  std::size_t add_root() {
    nodes_.emplace_back();
    return nodes_.size() - 1;
  }

  // Adds the path of callers (innermost first) beneath `root`.
  void add_path(std::size_t root, std::span<const LogicalFrame> path, const SiteStats& stats) {
    std::uint32_t parent = static_cast<std::uint32_t>(root);
    for (const LogicalFrame& frame : path) {
      const std::uint32_t id = frame_id(frame);
      const auto [child, added] = child_of_.try_emplace(std::uint64_t{parent} << 32 | id,
                                                        static_cast<std::uint32_t>(nodes_.size()));
      if (added) {
        nodes_.push_back(Node{.frame = id});
        nodes_[parent].children.push_back(child->second);
      }
      parent = child->second;
      nodes_[parent].amounts.add(stats);
    }
  }

  // Once every path is added: the index that found children is no longer needed.
  void stop_adding() {
    child_of_ = {};
    frame_ids_ = {};
  }

  // The callers beneath `node` as nested CallerNodes, moved out of the table (a trace of
  // millions of distinct backtraces has millions of nodes: they are not copied).
  std::vector<CallerNode> take_callers(std::size_t node) {
    std::vector<std::uint32_t> children = std::move(nodes_[node].children);
    std::vector<CallerNode> callers;
    callers.reserve(children.size());
    for (const std::uint32_t child : children) {
      callers.push_back(CallerNode{.frame = frames_[nodes_[child].frame],
                                   .amounts = nodes_[child].amounts,
                                   .callers = take_callers(child)});
    }
    return callers;
  }

 private:
  std::uint32_t frame_id(const LogicalFrame& frame) {
    const auto [found, added] =
        frame_ids_.try_emplace(frame.key, static_cast<std::uint32_t>(frames_.size()));
    if (added) {
      frames_.push_back(std::make_shared<const LogicalFrame>(frame));
    }
    return found->second;
  }

  struct Node {
    std::uint32_t frame = 0;  // in frames_; unused for roots
    SiteAmounts amounts{};
    std::vector<std::uint32_t> children{};
  };
  std::vector<Node> nodes_;
  std::vector<std::shared_ptr<const LogicalFrame>> frames_;
  std::unordered_map<std::string, std::uint32_t> frame_ids_;   // key -> index in frames_
  std::unordered_map<std::uint64_t, std::uint32_t> child_of_;  // parent << 32 | frame -> node
};

std::vector<LogicalFrame> logical_backtrace(const SiteStats& stats) {
  std::vector<LogicalFrame> frames;
  for (const FrameDetail* detail : stats.frame_details) {
    std::ranges::move(logical_frames(*detail), std::back_inserter(frames));
  }
  return frames;
}

LogicalFrame no_frame_outside() {
  return LogicalFrame{.label = "(no frame outside the allocator)"};
}

// The first logical frame of `stats` outside the allocator and the wrappers: the frames are
// expanded one by one until it is found (usually the first or second), not all of them.
LogicalFrame site_frame_of(const SiteStats& stats, const std::vector<std::string>& wrappers) {
  for (const FrameDetail* detail : stats.frame_details) {
    for (LogicalFrame& frame : logical_frames(*detail)) {
      if (!allocator_frame(frame, wrappers)) {
        return std::move(frame);
      }
    }
  }
  return no_frame_outside();
}

// The frames that called the site: those after the first one outside the allocator.
std::vector<LogicalFrame> callers_of_site(const SiteStats& stats,
                                          const std::vector<std::string>& wrappers) {
  std::vector<LogicalFrame> frames = logical_backtrace(stats);
  const auto outside = std::ranges::find_if(
      frames, [&](const LogicalFrame& f) { return !allocator_frame(f, wrappers); });
  if (outside == frames.end()) {
    return {};
  }
  frames.erase(frames.begin(), outside + 1);
  return frames;
}

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
                                             std::size_t with_callers) {
  // The sites and their amounts first: only the site frame of each backtrace is needed.
  std::vector<AllocationSite> sites;
  std::vector<std::size_t> site_of(data.sites.size(), sites.max_size());  // by index in data.sites
  std::unordered_map<std::string, std::size_t> index_of;  // "type key" -> index in sites
  index_of.reserve(data.sites.size());
  for (std::size_t i = 0; i < data.sites.size(); ++i) {
    const SiteStats& stats = data.sites[i];
    if (stats.allocations == 0) {
      continue;
    }
    LogicalFrame site_frame = site_frame_of(stats, wrappers);
    const auto [index, added] =
        index_of.try_emplace(std::to_string(stats.type) + ' ' + site_frame.key, sites.size());
    if (added) {
      sites.push_back(AllocationSite{.type = stats.type, .frame = std::move(site_frame)});
    }
    sites[index->second].amounts.add(stats);
    site_of[i] = index->second;
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
  std::vector<std::size_t> root_of(sites.size(), sites.max_size());  // by index in sites
  CallerTrees trees;
  std::unordered_map<std::uint32_t, std::size_t> chosen_of_type;
  for (const std::size_t index : order) {
    std::size_t& chosen = chosen_of_type[sites[index].type];
    if (chosen < with_callers) {
      ++chosen;
      root_of[index] = trees.add_root();
    }
  }
  for (std::size_t i = 0; i < data.sites.size(); ++i) {
    if (site_of[i] < sites.size() && root_of[site_of[i]] != sites.max_size()) {
      trees.add_path(root_of[site_of[i]], callers_of_site(data.sites[i], wrappers), data.sites[i]);
    }
  }
  trees.stop_adding();

  std::vector<AllocationSite> ranked;
  ranked.reserve(sites.size());
  for (const std::size_t index : order) {
    AllocationSite& site = ranked.emplace_back(std::move(sites[index]));
    if (root_of[index] != sites.max_size()) {
      site.callers = trees.take_callers(root_of[index]);
      sort_callers(site.callers);
    }
  }
  return ranked;
}

}  // namespace rtrace::reports
