// What several sections show alike: a list of sites (leaks, the peak, the most allocating, the
// temporary) and a backtrace, as text, as --json and as the HTML page's data.
#pragma once

#include <string>
#include <vector>

#include "reports/json_layout.h"
#include "reports/report_data.h"
#include "reports/report_sections.h"

namespace rtrace::reports {

// The frames of a backtrace, one indented line each, or "(no backtrace)".
void append_frames(std::string& out, const FrameNames& frames, const RenderOptions& options);

// The backtrace as a JSON array of frame names, as the options show them.
Json frames_json(const FrameNames& frames, const RenderOptions& options);

// --json: one object per site, with its type's name, its figures and its backtrace.
Json sites_json(const ReportData& data, const std::vector<const SiteStats*>& sites,
                const RenderOptions& options);

// The HTML page's data: the same without "suppressed", frames as the trace names them.
Json html_sites_json(const ReportData& data, const std::vector<const SiteStats*>& sites);

// The resource type a type's sites carry (an unnamed type 0 counts as memory, type 1).
std::uint32_t sites_type(const TypeTotals& type);

}  // namespace rtrace::reports
