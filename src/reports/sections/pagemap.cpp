// PAGES: the pagemap module's attachments (pagemap_report.h): the private writable mappings when
// tracing stopped, their resident and all-zero pages. Only for a trace that has them.
#include "reports/pagemap_report.h"
#include "reports/section_table.h"

namespace rtrace::reports {
namespace {

void text(const SectionInput& input, std::string& out) {
  if (input.data.pagemap) {
    out += render_pagemap_text(*input.data.pagemap);
  }
}

void json(const SectionInput& input, JsonLines& out) {
  if (input.data.pagemap) {
    out.push_back({{"pagemap", render_pagemap_json(*input.data.pagemap)}});
  }
}

// The page's script tests for null.
void html(const SectionInput& input, HtmlSectionParts& out) {
  out.members.push_back(
      {{"pagemap", input.data.pagemap ? render_pagemap_json(*input.data.pagemap) : Json()}});
}

}  // namespace

ReportSection pagemap_section() {
  return {.name = "pagemap", .text = text, .json = json, .html = html};
}

}  // namespace rtrace::reports
