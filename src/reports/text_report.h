// The report as plain text for a terminal, in the spirit of heaptrack_print.
#pragma once

#include <string>

#include "reports/report_data.h"
#include "reports/report_diff.h"
#include "reports/report_sections.h"

namespace rtrace::reports {

// `diff` may be null (no --diff).
std::string render_text(const ReportData& data, const ReportDiff* diff,
                        const RenderOptions& options);

}  // namespace rtrace::reports
