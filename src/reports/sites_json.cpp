#include "reports/sites_json.h"

#include "filters/live_resources.h"
#include "reports/allocation_sites.h"
#include "reports/sections/site_lists.h"

namespace rtrace::reports {
namespace {

void add_amounts(Json& object, const SiteAmounts& a) {
  object["allocations"] = a.allocations;
  object["bytes_allocated"] = a.bytes_allocated;
  object["peak_bytes"] = a.peak_bytes;
  object["leaked_blocks"] = a.leaked_blocks;
  object["leaked_bytes"] = a.leaked_bytes;
}

void add_frame(Json& object, const LogicalFrame& frame, const RenderOptions& options) {
  object["frame"] = json_text(shown_name(frame.label, options));
  object["inlined"] = frame.inlined;
}

// Every caller, as the text shows them but without the --top cut: scripts filter themselves.
Json callers_json(const std::vector<CallerNode>& callers, const RenderOptions& options) {
  Json list = Json::array();
  for (const CallerNode& c : callers) {
    Json caller;
    add_frame(caller, *c.frame, options);
    add_amounts(caller, c.amounts);
    caller["callers"] = callers_json(c.callers, options);
    list.push_back(std::move(caller));
  }
  return list;
}

}  // namespace

Json allocation_sites_json(const ReportData& data, const RenderOptions& options) {
  const std::vector<AllocationSite> sites = allocation_sites(data, options.wrappers, options.top);
  Json list = Json::array();
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
      Json entry;
      entry["type"] = json_text(t.type.type);
      add_frame(entry, site.frame, options);
      add_amounts(entry, site.amounts);
      entry["callers"] = callers_json(site.callers, options);
      list.push_back(std::move(entry));
    }
  }
  return list;
}

Json mismatched_releases_json(const ReportData& data, const RenderOptions& options) {
  Json list = Json::array();
  const std::size_t shown = std::min(options.top, data.mismatched_releases.size());
  for (std::size_t i = 0; i < shown; ++i) {
    const MismatchedRelease& m = data.mismatched_releases[i];
    Json entry;
    entry["allocated_by"] = json_text(m.allocated_by);
    entry["released_by"] = json_text(m.released_by);
    entry["blocks"] = m.blocks;
    entry["bytes"] = m.bytes;
    entry["backtrace"] = frames_json(data.frame_names(data.sites[m.site]), options);
    entry["release_backtrace"] = frames_json(m.release_frame_names, options);
    list.push_back(std::move(entry));
  }
  return list;
}

Json heap_json(const ReportData& data) {
  if (!data.heap) {
    return nullptr;
  }
  const HeapInfo& h = *data.heap;
  return {{"arena", h.arena},      {"ordblks", h.ordblks},   {"smblks", h.smblks},
          {"hblks", h.hblks},      {"hblkhd", h.hblkhd},     {"usmblks", h.usmblks},
          {"fsmblks", h.fsmblks},  {"uordblks", h.uordblks}, {"fordblks", h.fordblks},
          {"keepcost", h.keepcost}};
}

}  // namespace rtrace::reports
