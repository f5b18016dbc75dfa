#include "reports/sites_json.h"

#include <fmt/format.h>

#include <iterator>

#include "filters/live_resources.h"
#include "io/json_string.h"
#include "reports/allocation_sites.h"

namespace rtrace::reports {
namespace {

std::string amounts_json(const SiteAmounts& a) {
  return fmt::format(
      R"("allocations": {}, "bytes_allocated": {}, "peak_bytes": {}, "leaked_blocks": {}, )"
      R"("leaked_bytes": {})",
      a.allocations, a.bytes_allocated, a.peak_bytes, a.leaked_blocks, a.leaked_bytes);
}

std::string frame_json(const LogicalFrame& frame, const RenderOptions& options) {
  return fmt::format(R"("frame": {}, "inlined": {})", json_string(shown_name(frame.label, options)),
                     frame.inlined ? "true" : "false");
}

// Every caller, as the text shows them but without the --top cut: scripts filter themselves.
std::string callers_json(const std::vector<CallerNode>& callers, const RenderOptions& options) {
  std::string out = "[";
  for (std::size_t i = 0; i < callers.size(); ++i) {
    const CallerNode& c = callers[i];
    fmt::format_to(std::back_inserter(out), R"({}{{{}, {}, "callers": {}}})", i == 0 ? "" : ", ",
                   frame_json(*c.frame, options), amounts_json(c.amounts),
                   callers_json(c.callers, options));
  }
  return out + "]";
}

std::string frames_json(const FrameNames& frames, const RenderOptions& options) {
  std::string out = "[";
  for (std::size_t i = 0; i < frames.size(); ++i) {
    out += (i == 0 ? "" : ", ") + json_string(shown_name(frames[i], options));
  }
  return out + "]";
}

}  // namespace

std::string allocation_sites_json(const ReportData& data, const RenderOptions& options) {
  const std::vector<AllocationSite> sites = allocation_sites(data, options.wrappers, options.top);
  std::string out = "[";
  std::size_t shown = 0;
  for (const TypeTotals& t : data.types) {
    // Per type, the first --top sites, as the text report lists them.
    std::size_t of_type = 0;
    for (const AllocationSite& site : sites) {
      if (site.type != effective_resource_type(t.type.id)) {
        continue;
      }
      if (of_type++ == options.top) {
        break;
      }
      fmt::format_to(std::back_inserter(out), R"({}{{"type": {}, {}, {}, "callers": {}}})",
                     shown++ == 0 ? "\n    " : ",\n    ", json_string(t.type.type),
                     frame_json(site.frame, options), amounts_json(site.amounts),
                     callers_json(site.callers, options));
    }
  }
  return out + (shown == 0 ? "]" : "\n  ]");
}

std::string mismatched_releases_json(const ReportData& data, const RenderOptions& options) {
  std::string out = "[";
  const std::size_t shown = std::min(options.top, data.mismatched_releases.size());
  for (std::size_t i = 0; i < shown; ++i) {
    const MismatchedRelease& m = data.mismatched_releases[i];
    fmt::format_to(std::back_inserter(out),
                   R"({}{{"allocated_by": {}, "released_by": {}, "blocks": {}, "bytes": {}, )"
                   R"("backtrace": {}, "release_backtrace": {}}})",
                   i == 0 ? "" : ", ", json_string(m.allocated_by), json_string(m.released_by),
                   m.blocks, m.bytes, frames_json(data.sites[m.site].frame_names, options),
                   frames_json(m.release_frame_names, options));
  }
  return out + "]";
}

std::string heap_json(const ReportData& data) {
  if (!data.heap) {
    return "null";
  }
  const HeapInfo& h = *data.heap;
  return fmt::format(
      R"({{"arena": {}, "ordblks": {}, "smblks": {}, "hblks": {}, "hblkhd": {}, "usmblks": {}, )"
      R"("fsmblks": {}, "uordblks": {}, "fordblks": {}, "keepcost": {}}})",
      h.arena, h.ordblks, h.smblks, h.hblks, h.hblkhd, h.usmblks, h.fsmblks, h.uordblks, h.fordblks,
      h.keepcost);
}

}  // namespace rtrace::reports
