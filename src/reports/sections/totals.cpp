// TOTALS: per resource type, its calls, allocations, bytes and releases. The JSON and the HTML
// page carry each type's peak and size histogram here too (one object per type).
#include <fmt/format.h>

#include <iterator>

#include "reports/resource_unit.h"
#include "reports/section_table.h"
#include "reports/sections/site_lists.h"

namespace rtrace::reports {
namespace {

// In a trace of an attached process: the releases of blocks allocated before the attach.
std::string before_tracing(const TypeTotals& t, bool attached) {
  return attached ? fmt::format(" ({} freed, allocated before tracing)", t.released_before_tracing)
                  : std::string();
}

void append_type(std::string& out, const TypeTotals& t, bool attached) {
  const ResourceUnit unit = resource_unit(t);
  if (unit.transfers) {
    fmt::format_to(std::back_inserter(out), "  {} ({}): {} calls, {} of {} bytes\n", t.type.type,
                   t.type.description, t.calls, unit.count(t.allocations), t.bytes_allocated);
    return;
  }
  const std::string weight = unit.sized ? fmt::format(" of {} bytes", t.bytes_allocated) : "";
  // free(NULL) and the like: not releases, counted apart (shown when there are some).
  const std::string null_releases =
      t.null_releases != 0 ? fmt::format(", {} null releases", t.null_releases) : "";
  fmt::format_to(std::back_inserter(out),
                 "  {} ({}): {} calls, {} allocations{}, {} releases{}{}, {} temporary\n",
                 t.type.type, t.type.description, t.calls, t.allocations, weight, t.releases,
                 before_tracing(t, attached), null_releases, t.temporary);
}

void text(const SectionInput& input, std::string& out) {
  out += "TOTALS\n";
  std::string unused;  // the types without a call, named on one line
  for (const TypeTotals& t : input.data.types) {
    if (t.calls == 0) {
      unused += unused.empty() ? t.type.type : ", " + t.type.type;
      continue;
    }
    append_type(out, t, input.data.attached);
  }
  if (!unused.empty()) {
    fmt::format_to(std::back_inserter(out), "  no calls: {}\n", unused);
  }
}

// The non-empty buckets of the size histogram.
Json histogram_json(const SizeHistogram& histogram) {
  Json buckets = Json::array();
  for (std::size_t bucket = 0; bucket < histogram.size(); ++bucket) {
    if (histogram[bucket] != 0) {
      buckets.push_back({{"from", bucket_low(bucket)},
                         {"to", bucket_high(bucket)},
                         {"count", histogram[bucket]}});
    }
  }
  return buckets;
}

// The counts the JSON and the HTML page's data both give a type, in the same order.
void add_counts(const TypeTotals& t, Json& type) {
  type["calls"] = t.calls;
  type["allocations"] = t.allocations;
  type["releases"] = t.releases;
  type["null_releases"] = t.null_releases;
  type["bytes_allocated"] = t.bytes_allocated;
  type["temporary"] = t.temporary;
  type["leaked_blocks"] = t.leaked_blocks;
  type["leaked_bytes"] = t.leaked_bytes;
}

Json type_json(const SectionInput& input, const TypeTotals& t) {
  const ResourceUnit unit = resource_unit(t);
  Json type;
  type["type"] = json_text(t.type.type);
  type["description"] = json_text(t.type.description);
  type["unit"] = json_text(unit.noun);
  type["sized"] = unit.sized;
  type["transfers"] = unit.transfers;
  add_counts(t, type);
  if (input.data.attached) {
    type["released_before_tracing"] = t.released_before_tracing;
  }
  Json peak;
  peak["bytes"] = t.peak_bytes;
  peak["call"] = t.peak_index;
  peak["timestamp_ms"] = t.peak_timestamp_ms;
  const std::optional<std::uint64_t> start = input.data.start_ns;
  peak["since_start_ns"] = t.peak_timestamp_ns != 0 && start && t.peak_timestamp_ns >= *start
                               ? Json(t.peak_timestamp_ns - *start)
                               : Json();
  peak["sites"] = sites_json(input.data, peak_sites(input.data, sites_type(t), input.options.top),
                             input.options);
  type["peak"] = std::move(peak);
  type["size_histogram"] = histogram_json(t.histogram);
  return type;
}

void json(const SectionInput& input, JsonLines& out) {
  Json types = Json::array();
  for (const TypeTotals& t : input.data.types) {
    types.push_back(type_json(input, t));
  }
  out.push_back({{"types", std::move(types)}});
}

// [from, to, count] per non-empty bucket.
Json html_histogram(const SizeHistogram& histogram) {
  Json buckets = Json::array();
  for (std::size_t bucket = 0; bucket < histogram.size(); ++bucket) {
    if (histogram[bucket] != 0) {
      buckets.push_back(Json::array({bucket_low(bucket), bucket_high(bucket), histogram[bucket]}));
    }
  }
  return buckets;
}

// "transfers": a type of transfers (resource_unit.h), which holds nothing.
Json html_type(const TypeTotals& t) {
  Json type;
  type["type"] = json_text(t.type.type);
  type["description"] = json_text(t.type.description);
  add_counts(t, type);
  type["peak_bytes"] = t.peak_bytes;
  type["peak_call"] = t.peak_index;
  type["peak_timestamp_ms"] = t.peak_timestamp_ms;
  type["histogram"] = html_histogram(t.histogram);
  type["transfers"] = resource_unit(t).transfers;
  return type;
}

void html(const SectionInput& input, HtmlSectionParts& out) {
  Json types = Json::array();
  for (const TypeTotals& t : input.data.types) {
    types.push_back(html_type(t));
  }
  out.members.push_back({{"types", std::move(types)}});
}

}  // namespace

ReportSection totals_section() {
  return {.name = "totals", .text = text, .json = json, .html = html};
}

}  // namespace rtrace::reports
