// CHECKPOINTS: the calls that neither allocate nor release (scopes, markers), most hit first
// (checkpoint_profile.h). Text only.
#include "reports/checkpoint_text.h"
#include "reports/section_table.h"

namespace rtrace::reports {
namespace {

void text(const SectionInput& input, std::string& out) {
  out += render_checkpoints(input.data.checkpoints, input.options.top,
                            input.data.start_ns.value_or(0));
}

}  // namespace

ReportSection checkpoints_section() {
  return {.name = "checkpoints", .text = text};
}

}  // namespace rtrace::reports
