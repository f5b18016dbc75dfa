// ALLOCATORS: the memory blocks each allocator handed out and those left at the end, when some
// came from the own functions of mimalloc, jemalloc or tcmalloc (mi_malloc, mallocx, tc_malloc,
// ...): which allocator a block came from. The C allocator's functions ("malloc") are those of
// whichever library provides them: in a program linked with one of those libraries, that library.
#include <fmt/format.h>

#include <iterator>

#include "reports/section_table.h"

namespace rtrace::reports {
namespace {

void text(const SectionInput& input, std::string& out) {
  if (input.data.allocators.empty()) {
    return;
  }
  out += "\nALLOCATORS\n";
  for (const AllocatorTotals& a : input.data.allocators) {
    fmt::format_to(std::back_inserter(out),
                   "  {}: {} allocation(s) of {} bytes, {} block(s) leaked, {} bytes\n", a.name,
                   a.allocations, a.bytes_allocated, a.leaked_blocks, a.leaked_bytes);
  }
}

void json(const SectionInput& input, JsonLines& out) {
  if (input.data.allocators.empty()) {
    return;
  }
  Json allocators = Json::array();
  for (const AllocatorTotals& a : input.data.allocators) {
    allocators.push_back({{"allocator", a.name},
                          {"allocations", a.allocations},
                          {"bytes_allocated", a.bytes_allocated},
                          {"leaked_blocks", a.leaked_blocks},
                          {"leaked_bytes", a.leaked_bytes}});
  }
  out.push_back({{"allocators", std::move(allocators)}});
}

void html(const SectionInput& input, HtmlSectionParts& out) {
  if (input.data.allocators.empty()) {
    return;
  }
  Json rows = Json::array();
  for (const AllocatorTotals& a : input.data.allocators) {
    rows.push_back(
        Json::array({a.name, a.allocations, a.bytes_allocated, a.leaked_blocks, a.leaked_bytes}));
  }
  out.tables.push_back(html_table(
      "allocators", "Allocators",
      "the memory blocks each allocator handed out (malloc: whichever library provides it), and "
      "those left at the end",
      Json::array({Json::array({"text", "allocator"}), Json::array({"count", "allocations"}),
                   Json::array({"bytes", "bytes allocated"}),
                   Json::array({"count", "blocks leaked"}),
                   Json::array({"bytes", "bytes leaked"})}),
      std::move(rows)));
}

}  // namespace

ReportSection allocators_section() {
  return {.name = "allocators", .text = text, .json = json, .html = html};
}

}  // namespace rtrace::reports
