#include "exports/html_tables.h"

#include <fmt/format.h>

#include <iterator>

#include "io/json_string.h"
#include "reports/pagemap_report.h"
#include "reports/report_sections.h"
#include "reports/resource_unit.h"
#include "reports/trace_ending.h"

namespace rtrace::exporters {
namespace {

using reports::ReportData;
using reports::SiteStats;

std::string strings_json(const reports::FrameNames& strings) {
  std::string out = "[";
  for (std::size_t i = 0; i < strings.size(); ++i) {
    out += (i == 0 ? "" : ",") + json_string(strings[i]);
  }
  return out + "]";
}

std::string site_json(const ReportData& data, const SiteStats& s) {
  return fmt::format(
      R"({{"type":{},"allocations":{},"bytes_allocated":{},"temporary":{},"leaked_blocks":{},)"
      R"("leaked_bytes":{},"peak_bytes":{},"backtrace":{}}})",
      json_string(reports::site_type_name(data, s)), s.allocations, s.bytes_allocated, s.temporary,
      s.leaked_blocks, s.leaked_bytes, s.peak_bytes, strings_json(s.frame_names));
}

std::string sites_json(const ReportData& data, const std::vector<const SiteStats*>& sites) {
  std::string out = "[";
  for (std::size_t i = 0; i < sites.size(); ++i) {
    out += (i == 0 ? "\n" : ",\n") + site_json(data, *sites[i]);
  }
  return out + "]";
}

// [from, to, count] per non-empty bucket.
std::string histogram_json(const reports::SizeHistogram& histogram) {
  std::string out = "[";
  for (std::size_t bucket = 0; bucket < histogram.size(); ++bucket) {
    if (histogram[bucket] != 0) {
      fmt::format_to(std::back_inserter(out), "{}[{},{},{}]", out.size() == 1 ? "" : ",",
                     reports::bucket_low(bucket), reports::bucket_high(bucket), histogram[bucket]);
    }
  }
  return out + "]";
}

// `transfers`: a type of transfers (reports/resource_unit.h), which holds nothing.
std::string type_json(const reports::TypeTotals& t) {
  return fmt::format(R"({{"type":{},"description":{},"calls":{},"allocations":{},"releases":{},)"
                     R"("bytes_allocated":{},"temporary":{},"leaked_blocks":{},"leaked_bytes":{},)"
                     R"("peak_bytes":{},"peak_call":{},"peak_timestamp_ms":{},"histogram":{},)"
                     R"("transfers":{}}})",
                     json_string(t.type.type), json_string(t.type.description), t.calls,
                     t.allocations, t.releases, t.bytes_allocated, t.temporary, t.leaked_blocks,
                     t.leaked_bytes, t.peak_bytes, t.peak_index, t.peak_timestamp_ms,
                     histogram_json(t.histogram), reports::resource_unit(t).transfers);
}

std::string peak_json(const ReportData& data, std::size_t top) {
  std::vector<const SiteStats*> sites;
  for (const reports::TypeTotals& t : data.types) {
    const std::vector<const SiteStats*> of_type =
        reports::peak_sites(data, t.type.id == 0 ? 1 : t.type.id, top);
    sites.insert(sites.end(), of_type.begin(), of_type.end());
  }
  return sites_json(data, sites);
}

// [allocations, bytes allocated, leaked blocks, leaked bytes, peak bytes]
std::string growth_json(const reports::Growth& g) {
  return fmt::format("[{},{},{},{},{}]", g.allocations, g.bytes_allocated, g.leaked_blocks,
                     g.leaked_bytes, g.peak_bytes);
}

std::string diff_json(const reports::ReportDiff& diff, std::size_t top) {
  std::string out = R"({"types":[)";
  for (std::size_t i = 0; i < diff.types.size(); ++i) {
    fmt::format_to(std::back_inserter(out), R"({}{{"type":{},"growth":{}}})", i == 0 ? "" : ",",
                   json_string(diff.types[i].type), growth_json(diff.types[i].growth));
  }
  out += R"(],"sites":[)";
  for (std::size_t i = 0; i < std::min(diff.sites.size(), top); ++i) {
    const reports::SiteGrowth& s = diff.sites[i];
    fmt::format_to(std::back_inserter(out), R"({}{{"type":{},"growth":{},"backtrace":{}}})",
                   i == 0 ? "\n" : ",\n", json_string(s.type), growth_json(s.growth),
                   strings_json(reports::FrameNames(s.frame_names.begin(), s.frame_names.end())));
  }
  return out + "]}";
}

}  // namespace

std::string report_tables_json(const ReportData& data, const reports::ReportDiff* diff,
                               std::size_t top) {
  std::string types = "[";
  for (std::size_t i = 0; i < data.types.size(); ++i) {
    types += (i == 0 ? "\n" : ",\n") + type_json(data.types[i]);
  }
  types += "]";
  return fmt::format(
      R"("process":{},"pid":{},{},"calls":{},"types":{},"suppressed":{{"blocks":{},"bytes":{}}},)"
      "\n"
      R"("leaks":{},"hot":{},"temporary":{},"peak":{},"diff":{},"pagemap":{})",
      json_string(data.process), data.pid, reports::trace_ending_json(data), data.calls, types,
      data.suppressed_blocks, data.suppressed_bytes,
      sites_json(data, reports::leak_sites(data, top)),
      sites_json(data, reports::allocating_sites(data, top)),
      sites_json(data, reports::temporary_sites(data, top)), peak_json(data, top),
      diff == nullptr ? "null" : diff_json(*diff, top),
      // The PAGES section: only for a trace with the pagemap module's attachments.
      data.pagemap ? reports::render_pagemap_json(*data.pagemap) : "null");
}

}  // namespace rtrace::exporters
