#include "reports/json_report.h"

#include <fmt/format.h>

#include <iterator>

#include "io/json_string.h"
#include "reports/resource_unit.h"
#include "reports/sites_json.h"
#include "reports/trace_ending.h"

namespace rtrace::reports {
namespace {

std::string frames_json(const FrameNames& frames, const RenderOptions& options) {
  std::string out = "[";
  for (std::size_t i = 0; i < frames.size(); ++i) {
    out += (i == 0 ? "" : ", ") + json_string(shown_name(frames[i], options));
  }
  return out + "]";
}

std::string site_json(const ReportData& data, const SiteStats& s, const RenderOptions& options) {
  return fmt::format(
      R"({{"type": {}, "allocations": {}, "bytes_allocated": {}, "temporary": {}, )"
      R"("leaked_blocks": {}, "leaked_bytes": {}, "peak_bytes": {}, "suppressed": {}, )"
      R"("backtrace": {}}})",
      json_string(site_type_name(data, s)), s.allocations, s.bytes_allocated, s.temporary,
      s.leaked_blocks, s.leaked_bytes, s.peak_bytes, s.suppressed ? "true" : "false",
      frames_json(s.frame_names, options));
}

std::string sites_json(const ReportData& data, const std::vector<const SiteStats*>& sites,
                       const RenderOptions& options) {
  std::string out = "[";
  for (std::size_t i = 0; i < sites.size(); ++i) {
    out += std::string(i == 0 ? "\n    " : ",\n    ") + site_json(data, *sites[i], options);
  }
  return out + (sites.empty() ? "]" : "\n  ]");
}

std::string histogram_json(const SizeHistogram& histogram) {
  std::string out = "[";
  bool first = true;
  for (std::size_t bucket = 0; bucket < histogram.size(); ++bucket) {
    if (histogram[bucket] == 0) {
      continue;
    }
    fmt::format_to(std::back_inserter(out), R"({}{{"from": {}, "to": {}, "count": {}}})",
                   first ? "" : ", ", bucket_low(bucket), bucket_high(bucket), histogram[bucket]);
    first = false;
  }
  return out + "]";
}

std::string type_json(const ReportData& data, const TypeTotals& t, const RenderOptions& options) {
  const std::uint32_t type = t.type.id == 0 ? 1 : t.type.id;
  const ResourceUnit unit = resource_unit(t);
  return fmt::format(
      R"({{"type": {}, "description": {}, "unit": {}, "sized": {}, "transfers": {}, "calls": {}, )"
      R"("allocations": {}, "releases": {}, )"
      R"("bytes_allocated": {}, "temporary": {}, "leaked_blocks": {}, "leaked_bytes": {}, )"
      R"("peak": {{"bytes": {}, "call": {}, "timestamp_ms": {}, "sites": {}}}, )"
      R"("size_histogram": {}}})",
      json_string(t.type.type), json_string(t.type.description), json_string(unit.noun),
      unit.sized ? "true" : "false", unit.transfers ? "true" : "false", t.calls, t.allocations,
      t.releases, t.bytes_allocated, t.temporary, t.leaked_blocks, t.leaked_bytes, t.peak_bytes,
      t.peak_index, t.peak_timestamp_ms,
      sites_json(data, peak_sites(data, type, options.top), options), histogram_json(t.histogram));
}

std::string growth_json(const Growth& g) {
  return fmt::format(
      R"({{"allocations": {}, "bytes_allocated": {}, "leaked_blocks": {}, "leaked_bytes": {}, )"
      R"("peak_bytes": {}}})",
      g.allocations, g.bytes_allocated, g.leaked_blocks, g.leaked_bytes, g.peak_bytes);
}

std::string diff_json(const ReportDiff& diff, const RenderOptions& options) {
  std::string out = R"({"types": [)";
  for (std::size_t i = 0; i < diff.types.size(); ++i) {
    const TypeGrowth& t = diff.types[i];
    fmt::format_to(std::back_inserter(out),
                   R"({}{{"type": {}, "unit": {}, "sized": {}, "growth": {}}})", i == 0 ? "" : ", ",
                   json_string(t.type), json_string(t.unit.noun), t.unit.sized ? "true" : "false",
                   growth_json(t.growth));
  }
  out += R"(], "sites": [)";
  const std::size_t shown = std::min(diff.sites.size(), options.top);
  for (std::size_t i = 0; i < shown; ++i) {
    const SiteGrowth& s = diff.sites[i];
    fmt::format_to(std::back_inserter(out), R"({}{{"type": {}, "growth": {}, "backtrace": {}}})",
                   i == 0 ? "" : ", ", json_string(s.type), growth_json(s.growth),
                   frames_json(FrameNames(s.frame_names.begin(), s.frame_names.end()), options));
  }
  return out + "]}";
}

}  // namespace

std::string render_json(const ReportData& data, const ReportDiff* diff,
                        const RenderOptions& options) {
  std::string types = "[";
  for (std::size_t i = 0; i < data.types.size(); ++i) {
    types += std::string(i == 0 ? "\n    " : ",\n    ") + type_json(data, data.types[i], options);
  }
  types += data.types.empty() ? "]" : "\n  ]";
  return fmt::format(
      "{{\n  \"process\": {},\n  \"pid\": {},\n  {},\n  \"calls\": {},\n  \"types\": {},\n"
      "  \"suppressed\": {{\"blocks\": {}, \"bytes\": {}}},\n  \"leaks\": {},\n"
      "  \"allocation_sites\": {},\n  \"mismatched_releases\": {},\n"
      "  \"most_allocating\": {},\n  \"temporary\": {},\n  \"heap\": {},\n{}  \"diff\": {}\n}}\n",
      json_string(data.process), data.pid, trace_ending_json(data), data.calls, types,
      data.suppressed_blocks, data.suppressed_bytes,
      sites_json(data, leak_sites(data, options.top), options),
      allocation_sites_json(data, options), mismatched_releases_json(data, options),
      sites_json(data, allocating_sites(data, options.top), options),
      sites_json(data, temporary_sites(data, options.top), options), heap_json(data),
      // Only for a trace with the pagemap module's attachments.
      data.pagemap ? fmt::format("  \"pagemap\": {},\n", render_pagemap_json(*data.pagemap)) : "",
      diff == nullptr ? "null" : diff_json(*diff, options));
}

}  // namespace rtrace::reports
