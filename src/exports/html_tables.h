// The figures and tables of `rtrace report` as the JSON the HTML report's page reads: the same
// selections as the text and JSON reports (reports/report_sections.h), so all three agree.
#pragma once

#include <cstddef>
#include <string>

#include "reports/report_data.h"
#include "reports/report_diff.h"

namespace rtrace::exporters {

// JSON object members (no braces): "process", "pid", "calls", "types" (totals, peak and size
// histogram of each), "suppressed", "leaks", "hot", "temporary", "peak" (what was alive at each
// type's peak) with at most `top` sites each, and "diff" (null without `diff`).
std::string report_tables_json(const reports::ReportData& data, const reports::ReportDiff* diff,
                               std::size_t top);

}  // namespace rtrace::exporters
