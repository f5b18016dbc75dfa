#include "exports/html_tables.h"

#include "reports/section_table.h"

namespace rtrace::exporters {

std::string report_tables_json(const reports::ReportData& data, const reports::ReportDiff* diff,
                               const reports::RenderOptions& options) {
  const reports::SectionInput input{.data = data, .diff = diff, .options = options};
  reports::HtmlSectionParts parts;
  for (const reports::ReportSection& section : reports::report_section_table()) {
    if (section.html != nullptr) {
      section.html(input, parts);
    }
  }
  // The sections the page draws as plain tables, after those it has code for.
  parts.members.push_back({{"sections", std::move(parts.tables)}});
  std::string out;
  append_json_lines(out, parts.members, reports::JsonLayout{}, "");
  return out;
}

}  // namespace rtrace::exporters
