// A report section that only the test build of rtrace has (rtrace_with_test_section): added to
// the section table by this file alone, as any new section is, it must show in the text, the
// JSON and the HTML page of a report.
#include <fmt/format.h>

#include <iterator>

#include "reports/section_table.h"

namespace rtrace::reports {
namespace {

void text(const SectionInput& input, std::string& out) {
  out += "\nTEST SECTION\n";
  for (const TypeTotals& t : input.data.types) {
    fmt::format_to(std::back_inserter(out), "  {}: {} calls, {} bytes allocated\n", t.type.type,
                   t.calls, t.bytes_allocated);
  }
}

void json(const SectionInput& input, JsonLines& out) {
  Json types = Json::array();
  for (const TypeTotals& t : input.data.types) {
    types.push_back({{"type", json_text(t.type.type)},
                     {"calls", t.calls},
                     {"bytes_allocated", t.bytes_allocated}});
  }
  out.push_back({{"test_section", std::move(types)}});
}

void html(const SectionInput& input, HtmlSectionParts& out) {
  Json rows = Json::array();
  for (const TypeTotals& t : input.data.types) {
    rows.push_back(Json::array({json_text(t.type.type), t.calls, t.bytes_allocated}));
  }
  const Json columns =
      Json::array({Json::array({"type", "resource"}), Json::array({"count", "calls"}),
                   Json::array({"bytes", "allocated"})});
  out.tables.push_back(html_table("test-section", "Test section",
                                  "Calls and bytes per resource type.", columns, std::move(rows)));
}

// Added when the program starts, before main parses the command line.
const bool kAdded =
    (add_report_section({.name = "test_section", .text = text, .json = json, .html = html}), true);

}  // namespace
}  // namespace rtrace::reports
