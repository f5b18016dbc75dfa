// RANGE: only in a report of a stretch of the trace (rtrace report --from/--to). It says which
// calls the range holds and, per resource type, the three figures a range has: what was
// allocated in it, what was alive at its end (allocated before it or in it), and what was
// allocated in it and is still alive at its end (what grew), then the sites that grew most.
// The other sections count the calls of the range; their "leaked" is "alive at its end".
#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "reports/section_table.h"
#include "reports/sections/site_lists.h"

namespace rtrace::reports {
namespace {

// The sites holding most bytes allocated in the range and alive at its end, at most `top`.
std::vector<const SiteStats*> grown_sites(const ReportData& data, std::size_t top) {
  std::vector<const SiteStats*> sites;
  for (const SiteStats& site : data.sites) {
    if (site.grown_blocks > 0) {
      sites.push_back(&site);
    }
  }
  const auto most = [](const SiteStats* a, const SiteStats* b) {
    return a->grown_bytes != b->grown_bytes ? a->grown_bytes > b->grown_bytes
                                            : a->first_index < b->first_index;
  };
  const std::size_t kept = std::min(top, sites.size());
  std::partial_sort(sites.begin(), sites.begin() + static_cast<std::ptrdiff_t>(kept), sites.end(),
                    most);
  sites.resize(kept);
  return sites;
}

std::string calls_text(const ReportRange& range) {
  if (!range.first_call) {
    return "no call";
  }
  return fmt::format("calls {} to {}", *range.first_call, *range.last_call);
}

void text(const SectionInput& input, std::string& out) {
  const ReportData& data = input.data;
  if (!data.range) {
    return;
  }
  fmt::format_to(std::back_inserter(out),
                 "RANGE {} ({}): counts are of the calls in the range; \"alive at the range's "
                 "end\" includes what was allocated before it\n",
                 data.range->description, calls_text(*data.range));
  for (const TypeTotals& t : data.types) {
    if (t.calls == 0 && t.leaked_blocks == 0) {
      continue;
    }
    fmt::format_to(std::back_inserter(out),
                   "  {}: allocated in the range: {} allocations of {} bytes; alive at its end: "
                   "{} blocks of {} bytes; allocated in it and alive at its end: {} blocks of {} "
                   "bytes\n",
                   t.type.type, t.allocations, t.bytes_allocated, t.leaked_blocks, t.leaked_bytes,
                   t.grown_blocks, t.grown_bytes);
  }
  out += "  grew most (allocated in the range, alive at its end):\n";
  for (const SiteStats* site : grown_sites(data, input.options.top)) {
    fmt::format_to(std::back_inserter(out), "    {} bytes in {} blocks ({}) from:\n",
                   site->grown_bytes, site->grown_blocks, site_type_name(data, *site));
    append_frames(out, data.frame_names(*site), input.options);
  }
  out += '\n';
}

Json range_json(const SectionInput& input, bool html) {
  const ReportData& data = input.data;
  Json range;
  range["description"] = json_text(data.range->description);
  range["first_call"] = data.range->first_call ? Json(*data.range->first_call) : Json(nullptr);
  range["last_call"] = data.range->last_call ? Json(*data.range->last_call) : Json(nullptr);
  Json types = Json::array();
  for (const TypeTotals& t : data.types) {
    types.push_back({{"type", json_text(t.type.type)},
                     {"allocations", t.allocations},
                     {"bytes_allocated", t.bytes_allocated},
                     {"alive_blocks", t.leaked_blocks},
                     {"alive_bytes", t.leaked_bytes},
                     {"grown_blocks", t.grown_blocks},
                     {"grown_bytes", t.grown_bytes}});
  }
  range["types"] = std::move(types);
  Json grown = Json::array();
  for (const SiteStats* site : grown_sites(data, input.options.top)) {
    const FrameNames frames = data.frame_names(*site);
    Json backtrace = Json::array();
    if (html) {
      for (const std::string_view frame : frames) {
        backtrace.push_back(json_text(frame));
      }
    } else {
      backtrace = frames_json(frames, input.options);
    }
    grown.push_back({{"type", json_text(site_type_name(data, *site))},
                     {"grown_blocks", site->grown_blocks},
                     {"grown_bytes", site->grown_bytes},
                     {"backtrace", std::move(backtrace)}});
  }
  range["grown"] = std::move(grown);
  return range;
}

void json(const SectionInput& input, JsonLines& out) {
  if (input.data.range) {
    out.push_back({{"range", range_json(input, false)}});
  }
}

void html(const SectionInput& input, HtmlSectionParts& out) {
  out.members.push_back({{"range", input.data.range ? range_json(input, true) : Json(nullptr)}});
}

}  // namespace

ReportSection range_section() {
  return {.name = "range", .text = text, .json = json, .html = html};
}

}  // namespace rtrace::reports
