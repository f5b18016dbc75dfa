// The heap profiler's sections of the text report: ALLOCATION SITES (each site with the tree of
// its callers) and MISMATCHED RELEASES.
#pragma once

#include <string>

#include "reports/report_data.h"
#include "reports/report_sections.h"

namespace rtrace::reports {

std::string render_allocation_sites(const ReportData& data, const RenderOptions& options);
std::string render_mismatched_releases(const ReportData& data, const RenderOptions& options);

}  // namespace rtrace::reports
