// MOST ALLOCATING BACKTRACES ("hot" on the HTML page): the backtraces that allocate most often.
#include <fmt/format.h>

#include <iterator>

#include "reports/resource_unit.h"
#include "reports/section_table.h"
#include "reports/sections/site_lists.h"

namespace rtrace::reports {
namespace {

void text(const SectionInput& input, std::string& out) {
  out += "\nMOST ALLOCATING BACKTRACES\n";
  for (const SiteStats* site : allocating_sites(input.data, input.options.top)) {
    const ResourceUnit unit = site_unit(input.data, *site);
    const std::string weight = unit.sized ? fmt::format(" of {} bytes", site->bytes_allocated) : "";
    fmt::format_to(std::back_inserter(out), "    {} {}{} ({}) from:\n", site->allocations,
                   unit.transfers ? "transfers" : "allocations", weight,
                   site_type_name(input.data, *site));
    append_frames(out, input.data.frame_names(*site), input.options);
  }
}

void json(const SectionInput& input, JsonLines& out) {
  out.push_back(
      {{"most_allocating",
        sites_json(input.data, allocating_sites(input.data, input.options.top), input.options)}});
}

void html(const SectionInput& input, HtmlSectionParts& out) {
  out.members.push_back(
      {{"hot", html_sites_json(input.data, allocating_sites(input.data, input.options.top))}});
}

}  // namespace

ReportSection most_allocating_section() {
  return {.name = "most_allocating", .text = text, .json = json, .html = html};
}

}  // namespace rtrace::reports
