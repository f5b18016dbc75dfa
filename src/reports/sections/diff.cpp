// GROWTH SINCE THE BASELINE (with --diff): per type and per backtrace, what grew from the
// baseline trace to this one (report_diff.h). null in the JSON and on the page without --diff.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "reports/section_table.h"
#include "reports/sections/site_lists.h"

namespace rtrace::reports {
namespace {

// A type counted, not weighed (descriptors, streams: every size is 1), grows in resources.
void append_type_growth(std::string& out, const TypeGrowth& t) {
  const Growth& g = t.growth;
  if (!t.unit.sized) {
    fmt::format_to(std::back_inserter(out), "  {}: {:+} allocations, {:+} leaked {}(s)\n", t.type,
                   g.allocations, g.leaked_blocks, t.unit.noun);
    return;
  }
  fmt::format_to(std::back_inserter(out),
                 "  {}: {:+} allocations, {:+} bytes allocated, {:+} leaked blocks, {:+} leaked "
                 "bytes, {:+} peak bytes\n",
                 t.type, g.allocations, g.bytes_allocated, g.leaked_blocks, g.leaked_bytes,
                 g.peak_bytes);
}

void append_site_growth(std::string& out, const SiteGrowth& site, const RenderOptions& options) {
  const Growth& g = site.growth;
  if (!site.unit.sized) {
    fmt::format_to(std::back_inserter(out),
                   "    {:+} leaked {}(s) in {:+} allocations ({}) from:\n", g.leaked_blocks,
                   site.unit.noun, g.allocations, site.type);
  } else {
    fmt::format_to(std::back_inserter(out),
                   "    {:+} leaked bytes, {:+} bytes allocated in {:+} allocations ({}) from:\n",
                   g.leaked_bytes, g.bytes_allocated, g.allocations, site.type);
  }
  append_frames(out, FrameNames(site.frame_names.begin(), site.frame_names.end()), options);
}

// The sites that grew most, as many as --top.
std::size_t shown_sites(const SectionInput& input) {
  return std::min(input.diff->sites.size(), input.options.top);
}

void text(const SectionInput& input, std::string& out) {
  if (input.diff == nullptr) {
    return;
  }
  out += "\nGROWTH SINCE THE BASELINE\n";
  for (const TypeGrowth& t : input.diff->types) {
    append_type_growth(out, t);
  }
  for (std::size_t i = 0; i < shown_sites(input); ++i) {
    append_site_growth(out, input.diff->sites[i], input.options);
  }
}

Json growth_json(const Growth& g) {
  return {{"allocations", g.allocations},
          {"bytes_allocated", g.bytes_allocated},
          {"leaked_blocks", g.leaked_blocks},
          {"leaked_bytes", g.leaked_bytes},
          {"peak_bytes", g.peak_bytes}};
}

Json frame_names_json(const std::vector<std::string>& frames, const RenderOptions& options) {
  return frames_json(FrameNames(frames.begin(), frames.end()), options);
}

Json diff_json(const SectionInput& input) {
  Json types = Json::array();
  for (const TypeGrowth& t : input.diff->types) {
    types.push_back({{"type", json_text(t.type)},
                     {"unit", json_text(t.unit.noun)},
                     {"sized", t.unit.sized},
                     {"growth", growth_json(t.growth)}});
  }
  Json sites = Json::array();
  for (std::size_t i = 0; i < shown_sites(input); ++i) {
    const SiteGrowth& s = input.diff->sites[i];
    sites.push_back({{"type", json_text(s.type)},
                     {"growth", growth_json(s.growth)},
                     {"backtrace", frame_names_json(s.frame_names, input.options)}});
  }
  return {{"types", std::move(types)}, {"sites", std::move(sites)}};
}

void json(const SectionInput& input, JsonLines& out) {
  out.push_back({{"diff", input.diff == nullptr ? Json() : diff_json(input)}});
}

// [allocations, bytes allocated, leaked blocks, leaked bytes, peak bytes]
Json html_growth(const Growth& g) {
  return Json::array(
      {g.allocations, g.bytes_allocated, g.leaked_blocks, g.leaked_bytes, g.peak_bytes});
}

Json html_diff(const SectionInput& input) {
  Json types = Json::array();
  for (const TypeGrowth& t : input.diff->types) {
    types.push_back({{"type", json_text(t.type)}, {"growth", html_growth(t.growth)}});
  }
  Json sites = Json::array();
  for (std::size_t i = 0; i < shown_sites(input); ++i) {
    const SiteGrowth& s = input.diff->sites[i];
    sites.push_back({{"type", json_text(s.type)},
                     {"growth", html_growth(s.growth)},
                     {"backtrace", frame_names_json(s.frame_names, {})}});
  }
  return {{"types", std::move(types)}, {"sites", std::move(sites)}};
}

void html(const SectionInput& input, HtmlSectionParts& out) {
  out.members.push_back({{"diff", input.diff == nullptr ? Json() : html_diff(input)}});
}

}  // namespace

ReportSection diff_section() {
  return {.name = "diff", .text = text, .json = json, .html = html};
}

}  // namespace rtrace::reports
