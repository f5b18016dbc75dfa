// The figures and tables of `rtrace report` as the JSON the HTML report's page reads: the same
// selections as the text and JSON reports (reports/report_sections.h), so all three agree.
#pragma once

#include <string>

#include "reports/report_data.h"
#include "reports/report_diff.h"
#include "reports/report_sections.h"

namespace rtrace::exporters {

// JSON object members (no braces), one line per member, as the sections of the report's table
// (reports/section_table.h) give them: "process", "pid", "calls", "types" (totals, peak and size
// histogram of each), "peak" (what was alive at each type's peak), "suppressed", "leaks", "hot",
// "temporary" with at most `options.top` sites each, "pagemap" and "diff" (null without them),
// and "sections": the tables of the sections the page has no code of its own for (the call-tree
// views among them, when `options.trees` asks for them).
std::string report_tables_json(const reports::ReportData& data, const reports::ReportDiff* diff,
                               const reports::RenderOptions& options);

}  // namespace rtrace::exporters
