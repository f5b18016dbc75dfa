#include "reports/sites_text.h"

#include <fmt/format.h>

#include <iterator>

#include "filters/live_resources.h"
#include "reports/allocation_sites.h"
#include "reports/human_units.h"
#include "reports/resource_unit.h"

namespace rtrace::reports {
namespace {

std::string with_percent(std::uint64_t part, std::uint64_t whole) {
  const std::string share = percent(part, whole);
  return share.empty() ? human_bytes(part) : fmt::format("{} ({})", human_bytes(part), share);
}

// "12 allocations, 49.2 KB allocated (98.0%), peak 16.4 KB (80.0%), leaked 16.4 KB (100.0%) in
// 4 block(s)" (object(s), ...: the type's noun); for transfers (resource_unit.h) "12
// transfer(s), 49.2 KB (98.0%) transferred"; for a type counted, not weighed, "3 allocation(s),
// peak 2 descriptor(s), leaked 1 descriptor(s)"; percentages of `totals` when given.
std::string amounts_text(const SiteAmounts& a, const TypeTotals* totals, const ResourceUnit& unit) {
  const auto part = [&](std::uint64_t value, std::uint64_t whole) {
    return totals == nullptr ? human_bytes(value) : with_percent(value, whole);
  };
  if (unit.transfers) {
    return fmt::format("{} transfer(s), {} transferred", a.allocations,
                       part(a.bytes_allocated, totals ? totals->bytes_allocated : 0));
  }
  if (!unit.sized) {  // every size is 1: the "bytes" are resources
    return fmt::format("{} allocation(s), peak {}, leaked {}", a.allocations,
                       unit.count(a.peak_bytes), unit.count(a.leaked_blocks));
  }
  return fmt::format("{} allocation(s), {} allocated, peak {}, leaked {} in {}", a.allocations,
                     part(a.bytes_allocated, totals ? totals->bytes_allocated : 0),
                     part(a.peak_bytes, totals ? totals->peak_bytes : 0),
                     part(a.leaked_bytes, totals ? totals->leaked_bytes : 0),
                     unit.count(a.leaked_blocks));
}

// The callers beneath a site (`hidden` more left out as too small). A path without branches
// stays at one indentation (as heaptrack_print prints it); the callers of a branch are indented
// one step further. A caller whose figures are those of the node above it (its only path) shows
// none.
void append_callers(std::string& out, const std::vector<CallerNode>& callers, std::size_t hidden,
                    const SiteAmounts& above, std::size_t depth, const ResourceUnit& unit,
                    const RenderOptions& options) {
  const std::string indent(6 + 2 * depth, ' ');
  const std::size_t all = callers.size() + hidden;
  std::size_t shown = 0;
  for (const CallerNode& caller : callers) {
    if (shown == options.top) {
      break;
    }
    ++shown;
    const std::string label = shown_name(caller.frame->label, options);
    if (caller.amounts == above) {
      fmt::format_to(std::back_inserter(out), "{}{}\n", indent, label);
    } else {
      fmt::format_to(std::back_inserter(out), "{}{} ({})\n", indent, label,
                     amounts_text(caller.amounts, nullptr, unit));
    }
    const bool branch = all > 1 || caller.callers.size() + caller.hidden > 1;
    append_callers(out, caller.callers, caller.hidden, caller.amounts, branch ? depth + 1 : depth,
                   unit, options);
  }
  if (shown < all) {
    fmt::format_to(std::back_inserter(out), "{}... {} more caller(s)\n", indent, all - shown);
  }
}

}  // namespace

std::string render_allocation_sites(const ReportData& data, const RenderOptions& options) {
  std::string out =
      "\nALLOCATION SITES (the first frame outside the allocator and wrappers, its callers "
      "beneath)\n";
  const std::vector<AllocationSite> sites =
      allocation_sites(data, options.wrappers, options.top, options.callers_min_share);
  for (const TypeTotals& t : data.types) {
    const std::uint32_t type = effective_resource_type(t.type.id);
    std::size_t count = 0;
    for (const AllocationSite& site : sites) {
      count += site.type == type ? 1 : 0;
    }
    if (count == 0) {
      continue;
    }
    fmt::format_to(std::back_inserter(out), "  {}: {} site(s){}\n", t.type.type, count,
                   count > options.top ? fmt::format(", the first {}", options.top) : "");
    const ResourceUnit unit = resource_unit(t);
    std::size_t shown = 0;
    for (const AllocationSite& site : sites) {
      if (site.type != type) {
        continue;
      }
      if (shown++ == options.top) {
        break;
      }
      fmt::format_to(std::back_inserter(out), "    {}\n      {}\n",
                     shown_name(site.frame.label, options), amounts_text(site.amounts, &t, unit));
      append_callers(out, site.callers, site.hidden, site.amounts, 1, unit, options);
    }
  }
  return out;
}

std::string render_mismatched_releases(const ReportData& data, const RenderOptions& options) {
  std::string out = "\nMISMATCHED RELEASES (released by another allocator family)\n";
  if (data.mismatched_releases.empty()) {
    return out + "  none\n";
  }
  std::size_t shown = 0;
  for (const MismatchedRelease& m : data.mismatched_releases) {
    if (shown++ == options.top) {
      break;
    }
    fmt::format_to(std::back_inserter(out),
                   "  {} block(s) of {} from {} released by {}, allocated from:\n", m.blocks,
                   human_bytes(m.bytes), m.allocated_by, m.released_by);
    for (const std::string_view frame : data.frame_names(data.sites[m.site])) {
      fmt::format_to(std::back_inserter(out), "      {}\n", shown_name(frame, options));
    }
    if (!m.release_frame_names.empty()) {
      out += "    released from:\n";
      for (const std::string_view frame : m.release_frame_names) {
        fmt::format_to(std::back_inserter(out), "      {}\n", shown_name(frame, options));
      }
    }
  }
  return out;
}

}  // namespace rtrace::reports
