// ALLOCATION SITES: per type, the first frame outside the allocator and the program's wrappers
// (the heap profiler's view), each with the tree of its callers (allocation_sites.h).
#include "reports/section_table.h"
#include "reports/sites_json.h"
#include "reports/sites_text.h"

namespace rtrace::reports {
namespace {

void text(const SectionInput& input, std::string& out) {
  out += render_allocation_sites(input.data, input.options);
}

void json(const SectionInput& input, JsonLines& out) {
  out.push_back({{"allocation_sites", allocation_sites_json(input.data, input.options)}});
}

}  // namespace

ReportSection allocation_sites_section() {
  return {.name = "allocation_sites", .text = text, .json = json};
}

}  // namespace rtrace::reports
