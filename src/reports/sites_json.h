// The heap profiler's sections of the JSON report, as the text report shows them:
// "allocation_sites" (each site with its tree of callers), "mismatched_releases" and "heap".
#pragma once

#include "reports/json_layout.h"
#include "reports/report_data.h"
#include "reports/report_sections.h"

namespace rtrace::reports {

Json allocation_sites_json(const ReportData& data, const RenderOptions& options);
Json mismatched_releases_json(const ReportData& data, const RenderOptions& options);
// null when the trace has no heap statistics.
Json heap_json(const ReportData& data);

}  // namespace rtrace::reports
