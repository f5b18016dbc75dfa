// PEAK CONSUMPTION: per resource type, the most it held at once, when, and what was alive then
// by backtrace. (The JSON carries the peak in each type's object: totals.cpp.)
#include <fmt/format.h>

#include <iterator>

#include "reports/human_units.h"
#include "reports/resource_unit.h"
#include "reports/section_table.h"
#include "reports/sections/site_lists.h"

namespace rtrace::reports {
namespace {

// ", 12.3 ms after the start": when the peak came, since the trace's first call; nothing for a
// trace without times. A peak in the trace's first tick is not "0 ns after": the recorder's
// clock counts milliseconds (times that are whole milliseconds), so the peak came within the
// first one, not at the very start.
std::string since_start(const ReportData& data, const TypeTotals& t) {
  if (t.peak_timestamp_ns == 0 || !data.start_ns || t.peak_timestamp_ns < *data.start_ns) {
    return "";
  }
  constexpr std::uint64_t kNanosecondsPerMillisecond = 1'000'000;
  const std::uint64_t since = t.peak_timestamp_ns - *data.start_ns;
  if (since == 0) {
    return *data.start_ns % kNanosecondsPerMillisecond == 0 ? ", in the trace's first millisecond"
                                                            : ", at the start";
  }
  return ", " + human_duration(since) + " after the start";
}

void append_type(std::string& out, const SectionInput& input, const TypeTotals& t) {
  // A type counted, not weighed, has size 1 per resource: its "bytes" are resources.
  const ResourceUnit unit = resource_unit(t);
  if (unit.transfers) {
    fmt::format_to(std::back_inserter(out), "  {}: transfers, nothing held\n", t.type.type);
    return;
  }
  if (t.peak_bytes == 0) {
    fmt::format_to(std::back_inserter(out), "  {}: nothing allocated\n", t.type.type);
    return;
  }
  const auto amount = [&](std::uint64_t bytes) {
    return unit.sized ? fmt::format("{} bytes", bytes) : unit.count(bytes);
  };
  fmt::format_to(std::back_inserter(out), "  {}: {} alive after call {}{}\n", t.type.type,
                 amount(t.peak_bytes), t.peak_index, since_start(input.data, t));
  for (const SiteStats* site : peak_sites(input.data, sites_type(t), input.options.top)) {
    fmt::format_to(std::back_inserter(out), "    {} held from:\n", amount(site->peak_bytes));
    append_frames(out, input.data.frame_names(*site), input.options);
  }
}

void text(const SectionInput& input, std::string& out) {
  out += "\nPEAK CONSUMPTION\n";
  for (const TypeTotals& t : input.data.types) {
    if (t.calls != 0) {  // a type without calls is named once, in TOTALS
      append_type(out, input, t);
    }
  }
}

// What was alive at each type's peak, type after type.
void html(const SectionInput& input, HtmlSectionParts& out) {
  std::vector<const SiteStats*> sites;
  for (const TypeTotals& t : input.data.types) {
    const std::vector<const SiteStats*> of_type =
        peak_sites(input.data, sites_type(t), input.options.top);
    sites.insert(sites.end(), of_type.begin(), of_type.end());
  }
  out.members.push_back({{"peak", html_sites_json(input.data, sites)}});
}

}  // namespace

ReportSection peaks_section() {
  return {.name = "peaks", .text = text, .html = html};
}

}  // namespace rtrace::reports
