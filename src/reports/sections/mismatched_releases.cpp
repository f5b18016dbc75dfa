// MISMATCHED RELEASES: blocks released by a function of another family than the one that
// allocated them (`new[]` freed by `free`...), by allocating and releasing backtrace.
#include "reports/section_table.h"
#include "reports/sites_json.h"
#include "reports/sites_text.h"

namespace rtrace::reports {
namespace {

void text(const SectionInput& input, std::string& out) {
  out += render_mismatched_releases(input.data, input.options);
}

void json(const SectionInput& input, JsonLines& out) {
  out.push_back({{"mismatched_releases", mismatched_releases_json(input.data, input.options)}});
}

}  // namespace

ReportSection mismatched_releases_section() {
  return {.name = "mismatched_releases", .text = text, .json = json};
}

}  // namespace rtrace::reports
