// The heap's last statistics (the trace's HINF record, mallinfo's fields), null when the trace
// has none. The text says them among the process's lines (process.cpp).
#include "reports/section_table.h"
#include "reports/sites_json.h"

namespace rtrace::reports {
namespace {

void json(const SectionInput& input, JsonLines& out) {
  out.push_back({{"heap", heap_json(input.data)}});
}

}  // namespace

ReportSection heap_section() {
  return {.name = "heap", .json = json};
}

}  // namespace rtrace::reports
