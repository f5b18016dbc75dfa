// TEMPORARY ALLOCATIONS: the backtraces whose allocations the very next call released.
#include <fmt/format.h>

#include <iterator>

#include "reports/section_table.h"
#include "reports/sections/site_lists.h"

namespace rtrace::reports {
namespace {

void text(const SectionInput& input, std::string& out) {
  out += "\nTEMPORARY ALLOCATIONS (released by the very next call)\n";
  for (const SiteStats* site : temporary_sites(input.data, input.options.top)) {
    fmt::format_to(std::back_inserter(out), "    {} of {} allocations ({}) from:\n",
                   site->temporary, site->allocations, site_type_name(input.data, *site));
    append_frames(out, input.data.frame_names(*site), input.options);
  }
}

void json(const SectionInput& input, JsonLines& out) {
  out.push_back(
      {{"temporary",
        sites_json(input.data, temporary_sites(input.data, input.options.top), input.options)}});
}

void html(const SectionInput& input, HtmlSectionParts& out) {
  out.members.push_back(
      {{"temporary", html_sites_json(input.data, temporary_sites(input.data, input.options.top))}});
}

}  // namespace

ReportSection temporary_section() {
  return {.name = "temporary", .text = text, .json = json, .html = html};
}

}  // namespace rtrace::reports
