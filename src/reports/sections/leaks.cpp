// LEAKS (or what was alive when tracing was toggled off): per type, what was never released,
// what suppressions hid, and the leaking backtraces, most bytes first.
#include <fmt/format.h>

#include <iterator>

#include "reports/resource_unit.h"
#include "reports/section_table.h"
#include "reports/sections/site_lists.h"
#include "reports/trace_ending.h"

namespace rtrace::reports {
namespace {

void append_type(std::string& out, const ReportData& data, const TypeTotals& t) {
  const ResourceUnit unit = resource_unit(t);
  if (unit.transfers) {
    fmt::format_to(std::back_inserter(out), "  {}: transfers, never leaks\n", t.type.type);
    return;
  }
  fmt::format_to(std::back_inserter(out), "  {}: {} {}{}\n", t.type.type,
                 unit.count(t.leaked_blocks), leak_wording(data),
                 unit.sized ? fmt::format(", {} bytes", t.leaked_bytes) : "");
}

void text(const SectionInput& input, std::string& out) {
  const ReportData& data = input.data;
  if (!tracing_stopped_early(data)) {
    out += "\nLEAKS\n";
  } else if (data.end->reason == EndReason::NoSpace) {
    out +=
        "\nALIVE WHEN TRACING STOPPED (no space was left for the trace: not known to be leaks)\n";
  } else {
    out += "\nALIVE WHEN TRACING STOPPED (tracing was toggled off: not known to be leaks)\n";
  }
  for (const TypeTotals& t : data.types) {
    if (t.calls != 0) {
      append_type(out, data, t);
    }
  }
  if (data.suppressed_blocks > 0) {
    fmt::format_to(std::back_inserter(out), "  suppressed: {} block(s), {} bytes\n",
                   data.suppressed_blocks, data.suppressed_bytes);
    for (const SuppressionHit& hit : data.suppression_hits) {
      fmt::format_to(std::back_inserter(out), "    {} block(s), {} bytes by leak:{} ({}:{})\n",
                     hit.blocks, hit.bytes, hit.pattern, hit.source, hit.line);
    }
  }
  for (const SiteStats* site : leak_sites(data, input.options.top)) {
    const ResourceUnit unit = site_unit(data, *site);
    fmt::format_to(std::back_inserter(out), "    {}{} of {} from:\n",
                   unit.sized ? fmt::format("{} bytes in ", site->leaked_bytes) : "",
                   unit.count(site->leaked_blocks), site_type_name(data, *site));
    append_frames(out, input.data.frame_names(*site), input.options);
  }
}

Json suppressed_json(const ReportData& data) {
  Json rules = Json::array();
  for (const SuppressionHit& hit : data.suppression_hits) {
    rules.push_back({{"rule", "leak:" + hit.pattern},
                     {"source", hit.source},
                     {"line", hit.line},
                     {"blocks", hit.blocks},
                     {"bytes", hit.bytes}});
  }
  return {{"blocks", data.suppressed_blocks}, {"bytes", data.suppressed_bytes}, {"rules", rules}};
}

void json(const SectionInput& input, JsonLines& out) {
  out.push_back({{"suppressed", suppressed_json(input.data)}});
  out.push_back({{"leaks", sites_json(input.data, leak_sites(input.data, input.options.top),
                                      input.options)}});
}

void html(const SectionInput& input, HtmlSectionParts& out) {
  out.members.push_back({{"suppressed", suppressed_json(input.data)}});
  out.members.push_back(
      {{"leaks", html_sites_json(input.data, leak_sites(input.data, input.options.top))}});
}

}  // namespace

ReportSection leaks_section() {
  return {.name = "leaks", .text = text, .json = json, .html = html};
}

}  // namespace rtrace::reports
