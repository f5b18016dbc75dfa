#include "reports/text_report.h"

#include "io/terminal_text.h"
#include "reports/section_table.h"

namespace rtrace::reports {

std::string render_text(const ReportData& data, const ReportDiff* diff,
                        const RenderOptions& options) {
  const SectionInput input{.data = data, .diff = diff, .options = options};
  std::string out;
  for (const ReportSection& section : report_section_table()) {
    if (section.text != nullptr) {
      section.text(input, out);
    }
  }
  // Names from the trace must not reach a terminal as control sequences.
  return terminal_safe_lines(out);
}

}  // namespace rtrace::reports
