// The figures and tables of `rtrace report` as the JSON the HTML report's page reads: the same
// selections as the text and JSON reports (reports/report_sections.h), so all three agree.
#pragma once

#include <cstddef>
#include <string>

#include "reports/report_data.h"
#include "reports/report_diff.h"

namespace rtrace::exporters {

// JSON object members (no braces), one line per member, as the sections of the report's table
// (reports/section_table.h) give them: "process", "pid", "calls", "types" (totals, peak and size
// histogram of each), "peak" (what was alive at each type's peak), "suppressed", "leaks", "hot",
// "temporary" with at most `top` sites each, "pagemap" and "diff" (null without them), and
// "sections": the tables of the sections the page has no code of its own for.
std::string report_tables_json(const reports::ReportData& data, const reports::ReportDiff* diff,
                               std::size_t top);

}  // namespace rtrace::exporters
