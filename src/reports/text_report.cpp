#include "reports/text_report.h"

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
  return out;
}

}  // namespace rtrace::reports
