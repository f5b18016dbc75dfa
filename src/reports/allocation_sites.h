// The heap profiler's view of a report: allocations aggregated by allocation site, the first
// function of the backtrace outside the allocator and the program's own allocation wrappers
// (xmalloc, g_malloc, ... named by --wrapper), with the distinct paths that called it as a tree
// beneath it (as heaptrack_print shows them).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "reports/frame_text.h"
#include "reports/report_data.h"

namespace rtrace::reports {

// What a site, or one path of callers to it, accounts for.
struct SiteAmounts {
  std::uint64_t allocations = 0;
  std::uint64_t bytes_allocated = 0;
  std::uint64_t leaked_blocks = 0;  // not counting suppressed leaks
  std::uint64_t leaked_bytes = 0;
  std::uint64_t peak_bytes = 0;  // held when its resource type reached its peak

  void add(const SiteStats& stats);
  friend bool operator==(const SiteAmounts&, const SiteAmounts&) = default;
};

// A caller on the way to a site; its callers beneath it.
struct CallerNode {
  // Shared by the callers of the same code: a trace of millions of distinct backtraces has
  // millions of callers over far fewer distinct frames.
  std::shared_ptr<const LogicalFrame> frame{};
  SiteAmounts amounts{};
  std::vector<CallerNode> callers{};  // most first (see allocation_sites)
  std::size_t hidden = 0;             // callers left out, too small (see allocation_sites)
};

struct AllocationSite {
  std::uint32_t type = 0;  // resource type id, as SiteStats::type
  LogicalFrame frame{};    // label "(allocator only)" when no frame lies outside the allocator
  SiteAmounts amounts{};
  std::vector<CallerNode> callers{};  // most first
  std::size_t hidden = 0;             // callers left out, too small
};

// The functions that count as the allocator itself, as glob patterns over function names:
// the C allocator, the C++ operators and the C library's allocating string functions.
const std::vector<std::string>& allocator_patterns();

// Whether `frame` belongs to the allocator or to a wrapper: a pattern (allocator_patterns() or
// `wrappers`, fnmatch(3) globs) matches its function name or its module path, or it lies in a
// tracer module (librtrace-*, libsp-rtrace*).
bool allocator_frame(const LogicalFrame& frame, const std::vector<std::string>& wrappers);

// Every allocation site of the report, sorted by peak bytes, then leaked bytes, bytes
// allocated and allocations, most first (ties in order of first allocation); caller trees the
// same way, made for the first `with_callers` sites of each resource type (what a report shows):
// the others have no callers. A caller that holds less than `min_share` of each of its site's
// amounts (allocations, bytes allocated, peak and leaked bytes) is left out, with its own
// callers, and counted in its callee's `hidden`: a site called from a million distinct paths
// shows the ones that matter.
std::vector<AllocationSite> allocation_sites(const ReportData& data,
                                             const std::vector<std::string>& wrappers,
                                             std::size_t with_callers = SIZE_MAX,
                                             double min_share = 0);

}  // namespace rtrace::reports
