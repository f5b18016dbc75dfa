#include "reports/section_table.h"

namespace rtrace::reports {

#define RTRACE_REPORT_SECTION(name) ReportSection name##_section();
#include "reports/sections/section_list.h"
#undef RTRACE_REPORT_SECTION

namespace {

std::vector<ReportSection>& table() {
  static std::vector<ReportSection> sections{
#define RTRACE_REPORT_SECTION(name) name##_section(),
#include "reports/sections/section_list.h"
#undef RTRACE_REPORT_SECTION
  };
  return sections;
}

}  // namespace

const std::vector<ReportSection>& report_section_table() {
  return table();
}

void add_report_section(const ReportSection& section) {
  table().push_back(section);
}

Json html_table(std::string_view id, std::string_view title, std::string_view note,
                const Json& columns, Json rows) {
  Json table;
  table["id"] = id;
  table["title"] = title;
  table["note"] = note;
  table["columns"] = columns;
  table["rows"] = std::move(rows);
  return table;
}

}  // namespace rtrace::reports
