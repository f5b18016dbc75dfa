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
                                             const std::vector<std::string>& wrappers) {
  std::vector<AllocationSite> sites;
  std::unordered_map<std::string, std::size_t> index_of;  // "type key" -> index in sites
  CallerTrees trees;
  std::vector<std::size_t> roots;  // by index in sites
  for (const SiteStats& stats : data.sites) {
    if (stats.allocations == 0) {
      continue;
    }
    const std::vector<LogicalFrame> frames = logical_backtrace(stats);
    const auto outside = std::ranges::find_if(
        frames, [&](const LogicalFrame& f) { return !allocator_frame(f, wrappers); });
    LogicalFrame site_frame{.label = "(no frame outside the allocator)"};
    std::span<const LogicalFrame> callers;
    if (outside != frames.end()) {
      site_frame = *outside;
      callers = std::span(frames).subspan(static_cast<std::size_t>(outside - frames.begin()) + 1);
    }
    const auto [index, added] =
        index_of.try_emplace(std::to_string(stats.type) + ' ' + site_frame.key, sites.size());
    if (added) {
      sites.push_back(AllocationSite{.type = stats.type, .frame = site_frame});
      roots.push_back(trees.add_root());
    }
    sites[index->second].amounts.add(stats);
    trees.add_path(roots[index->second], callers, stats);
  }
  trees.stop_adding();
  for (std::size_t i = 0; i < sites.size(); ++i) {
    sites[i].callers = trees.take_callers(roots[i]);
  }
  std::ranges::stable_sort(sites, [](const AllocationSite& a, const AllocationSite& b) {
    return rank(a.amounts) > rank(b.amounts);
  });
  for (AllocationSite& site : sites) {
    sort_callers(site.callers);
  }
  return sites;
}

}  // namespace rtrace::reports
