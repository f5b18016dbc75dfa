// Which sites each section of the report lists, and in what order; shared by the text and
// JSON renderers so both always say the same thing.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "reports/cost_weight.h"
#include "reports/report_data.h"

namespace rtrace::reports {

// By default a caller of an allocation site is shown when it holds 1 % of some amount of its
// site: a site reached by a million distinct paths prints a few hundred lines, not millions.
inline constexpr double kDefaultCallersMinShare = 0.01;

// The call-tree views (bottom-up, top-down, callers and callees of a function): which the report
// shows, over what weight, how deep and how wide.
struct CallTreeOptions {
  CostWeight weight = CostWeight::Peak;
  bool bottom_up = false;
  bool top_down = false;
  std::string function{};    // an ECMAScript regex: the functions whose callers and callees show
  std::size_t depth = 12;    // levels beneath each entry
  std::size_t children = 5;  // children per node (heaptrack_print's sub-peak limit)
};

struct RenderOptions {
  std::size_t top = 10;  // entries per list
  // Glob patterns of the program's own allocation wrappers (xmalloc, g_malloc...): allocation
  // sites are the first frame outside the allocator and these.
  std::vector<std::string> wrappers{};
  bool short_templates = false;  // C++ template arguments left out of names
  // The text's caller trees leave out the callers that hold less than this share of every
  // amount of their site (allocation_sites.h).
  double callers_min_share = kDefaultCallersMinShare;
  CallTreeOptions trees{};
  // The leak kinds whose sites LEAKS BY KIND lists (rtrace report --leak-kinds, as valgrind's
  // --show-leak-kinds), by LeakKind value; the LEAK SUMMARY counts every kind whatever this says.
  std::array<bool, 5> leak_kinds{false, true, true, true, true};
};

// A frame or function name as the options want it shown.
std::string shown_name(std::string_view name, const RenderOptions& options);

// Unsuppressed leaks, most leaked bytes first (never a transfer: resource_unit.h).
std::vector<const SiteStats*> leak_sites(const ReportData& data, std::size_t top);
// Most allocations first.
std::vector<const SiteStats*> allocating_sites(const ReportData& data, std::size_t top);
// What was alive at the peak of `type`, most bytes first (nothing for a type of transfers).
std::vector<const SiteStats*> peak_sites(const ReportData& data, std::uint32_t type,
                                         std::size_t top);
// Most temporary allocations first (never a transfer).
std::vector<const SiteStats*> temporary_sites(const ReportData& data, std::size_t top);

// The resource type's name for a site ("memory", "fd", ...).
std::string site_type_name(const ReportData& data, const SiteStats& site);

// "[lo, hi)" bounds of a histogram bucket.
std::uint64_t bucket_low(std::size_t bucket);
std::uint64_t bucket_high(std::size_t bucket);  // inclusive

}  // namespace rtrace::reports
