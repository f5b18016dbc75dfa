// The report as JSON, for scripts: the same sections as the text report, numbers unformatted.
#pragma once

#include <string>

#include "reports/report_data.h"
#include "reports/report_diff.h"
#include "reports/report_sections.h"

namespace rtrace::reports {

// `diff` may be null (no --diff).
std::string render_json(const ReportData& data, const ReportDiff* diff,
                        const RenderOptions& options);

}  // namespace rtrace::reports
