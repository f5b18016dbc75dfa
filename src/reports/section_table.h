// The sections of `rtrace report`, as a table: each section is one file of sections/ that says
// what it shows as text, as members of the --json document and as data of the HTML page. The
// text report, the JSON report and the HTML page walk this table in order, so a new section is
// one file plus one line of sections/section_list.h, and it appears in all three.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "reports/json_layout.h"
#include "reports/report_data.h"
#include "reports/report_diff.h"
#include "reports/report_sections.h"

namespace rtrace::reports {

// What every section renders from.
struct SectionInput {
  const ReportData& data;
  const ReportDiff* diff;  // null without --diff
  const RenderOptions& options;
};

// What a section adds to the HTML page.
struct HtmlSectionParts {
  // Members of the page's data, which the page's script (exports/html_report.js) draws.
  JsonLines members{};
  // Sections the page's script draws as they are, without code of their own: each an object
  // made by html_table().
  Json tables = Json::array();
};

struct ReportSection {
  std::string_view name;
  // Each may be null: the section does not show in that output.
  void (*text)(const SectionInput& input, std::string& out) = nullptr;
  void (*json)(const SectionInput& input, JsonLines& out) = nullptr;
  void (*html)(const SectionInput& input, HtmlSectionParts& out) = nullptr;
};

// The sections in report order: those of sections/section_list.h, then those added by
// add_report_section.
const std::vector<ReportSection>& report_section_table();

// Adds a section after the others: for a build that brings sections of its own (a test).
void add_report_section(const ReportSection& section);

// A table the HTML page draws as a sortable table under `title`. `columns`: [kind, heading]
// pairs, kind as the page's tables know them ("type", "text", "count", "bytes", "backtrace");
// `rows`: arrays of values in the order of the columns.
Json html_table(std::string_view id, std::string_view title, std::string_view note,
                const Json& columns, Json rows);

}  // namespace rtrace::reports
