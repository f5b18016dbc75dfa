#include "reports/sections/site_lists.h"

#include <fmt/format.h>

#include <iterator>

namespace rtrace::reports {

void append_frames(std::string& out, const FrameNames& frames, const RenderOptions& options) {
  if (frames.empty()) {
    out += "      (no backtrace)\n";
    return;
  }
  for (const std::string_view frame : frames) {
    fmt::format_to(std::back_inserter(out), "      {}\n", shown_name(frame, options));
  }
}

Json frames_json(const FrameNames& frames, const RenderOptions& options) {
  Json names = Json::array();
  for (const std::string_view frame : frames) {
    names.push_back(json_text(shown_name(frame, options)));
  }
  return names;
}

namespace {

// One site's members. The page's sites carry no suppressed count, and name their frames with
// the default rendering options.
Json site_json(const ReportData& data, const SiteStats& s, const RenderOptions& options,
               bool with_suppressed) {
  Json site;
  site["type"] = json_text(site_type_name(data, s));
  site["allocations"] = s.allocations;
  site["bytes_allocated"] = s.bytes_allocated;
  site["temporary"] = s.temporary;
  site["leaked_blocks"] = s.leaked_blocks;
  site["leaked_bytes"] = s.leaked_bytes;
  site["peak_bytes"] = s.peak_bytes;
  if (with_suppressed) {
    site["suppressed"] = s.suppressed;
  }
  site["backtrace"] = frames_json(data.frame_names(s), options);
  return site;
}

}  // namespace

Json sites_json(const ReportData& data, const std::vector<const SiteStats*>& sites,
                const RenderOptions& options) {
  Json list = Json::array();
  for (const SiteStats* s : sites) {
    list.push_back(site_json(data, *s, options, true));
  }
  return list;
}

Json html_sites_json(const ReportData& data, const std::vector<const SiteStats*>& sites) {
  Json list = Json::array();
  for (const SiteStats* s : sites) {
    list.push_back(site_json(data, *s, {}, false));
  }
  return list;
}

std::uint32_t sites_type(const TypeTotals& type) {
  return type.type.id == 0 ? 1 : type.type.id;
}

}  // namespace rtrace::reports
