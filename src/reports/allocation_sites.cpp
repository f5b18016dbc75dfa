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
// into nested CallerNodes.
class CallerTrees {
 public:
  // A new tree (one per site); returns its root.
  std::size_t add_root() {
    nodes_.emplace_back();
    return nodes_.size() - 1;
  }

  // Adds the path of callers (innermost first) beneath `root`.
  void add_path(std::size_t root, std::span<const LogicalFrame> path, const SiteStats& stats) {
    std::size_t parent = root;
    for (const LogicalFrame& frame : path) {
      const auto [child, added] =
          child_of_.try_emplace(std::to_string(parent) + '\n' + frame.key, nodes_.size());
      if (added) {
        nodes_.push_back(Node{.frame = frame});
        nodes_[parent].children.push_back(child->second);
      }
      parent = child->second;
      nodes_[parent].amounts.add(stats);
    }
  }

  std::vector<CallerNode> callers(std::size_t node) const {
    std::vector<CallerNode> callers;
    for (const std::size_t child : nodes_[node].children) {
      callers.push_back(CallerNode{.frame = nodes_[child].frame,
                                   .amounts = nodes_[child].amounts,
                                   .callers = this->callers(child)});
    }
    return callers;
  }

 private:
  struct Node {
    LogicalFrame frame{};
    SiteAmounts amounts{};
    std::vector<std::size_t> children{};
  };
  std::vector<Node> nodes_;
  std::unordered_map<std::string, std::size_t> child_of_;  // "parent\nkey" -> node
};

std::vector<LogicalFrame> logical_backtrace(const SiteStats& stats) {
  std::vector<LogicalFrame> frames;
  for (const FrameDetail& detail : stats.frame_details) {
    std::ranges::move(logical_frames(detail), std::back_inserter(frames));
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
  for (std::size_t i = 0; i < sites.size(); ++i) {
    sites[i].callers = trees.callers(roots[i]);
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
