#include "reports/json_report.h"

#include "reports/section_table.h"

namespace rtrace::reports {
namespace {

// The lists of sites and types, one element per line; the rest of each member on its line.
const JsonLayout& report_layout() {
  static const JsonLayout layout{.row_arrays = {"/types", "/types/*/peak/sites", "/leaks",
                                                "/allocation_sites", "/most_allocating",
                                                "/temporary"}};
  return layout;
}

}  // namespace

std::string render_json(const ReportData& data, const ReportDiff* diff,
                        const RenderOptions& options) {
  const SectionInput input{.data = data, .diff = diff, .options = options};
  JsonLines lines;
  for (const ReportSection& section : report_section_table()) {
    if (section.json != nullptr) {
      section.json(input, lines);
    }
  }
  std::string out = "{\n";
  append_json_lines(out, lines, report_layout(), "  ");
  out += "\n}\n";
  return out;
}

}  // namespace rtrace::reports
