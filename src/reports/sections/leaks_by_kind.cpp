// LEAKS BY KIND: the leak check's blocks (rtrace record --leak-check) by valgrind's kinds, in its
// order (definitely lost first), each kind's allocation sites most bytes first with their
// backtraces, as valgrind's loss records. Only for traces with a leak check; suppressed sites are
// counted apart in the LEAK SUMMARY (leak_summary.cpp), which ends the report.
#include <fmt/format.h>

#include <iterator>

#include "reports/section_table.h"

namespace rtrace::reports {
namespace {

void text(const SectionInput& input, std::string& out) {
  if (!input.data.leak_kinds) {
    return;
  }
  out += "\nLEAKS BY KIND\n";
  for (const LeakKind kind : kLeakKinds) {
    const auto index = static_cast<std::size_t>(kind);
    if (!input.options.leak_kinds[index]) {
      continue;
    }
    const LeakKindTotals::Count& total = input.data.leak_kinds->kinds[index];
    fmt::format_to(std::back_inserter(out), "{}: {} bytes in {} blocks\n", leak_kind_name(kind),
                   total.bytes, total.blocks);
    const auto& sites = input.data.leak_kinds->sites[index];
    for (std::size_t i = 0; i < sites.size() && i < input.options.top; ++i) {
      fmt::format_to(std::back_inserter(out), "  {} bytes in {} blocks allocated at\n",
                     sites[i].count.bytes, sites[i].count.blocks);
      for (const std::string_view frame : input.data.frame_names(input.data.sites[sites[i].site])) {
        fmt::format_to(std::back_inserter(out), "    {}\n", shown_name(frame, input.options));
      }
    }
    if (sites.size() > input.options.top) {
      fmt::format_to(std::back_inserter(out), "  ... {} more site(s)\n",
                     sites.size() - input.options.top);
    }
  }
}

void json(const SectionInput& input, JsonLines& out) {
  if (!input.data.leak_kinds) {
    return;
  }
  Json kinds = Json::array();
  for (const LeakKind kind : kLeakKinds) {
    const auto index = static_cast<std::size_t>(kind);
    if (!input.options.leak_kinds[index]) {
      continue;
    }
    Json sites = Json::array();
    for (const LeakKindTotals::SiteCount& site : input.data.leak_kinds->sites[index]) {
      Json frames = Json::array();
      for (const std::string_view frame : input.data.frame_names(input.data.sites[site.site])) {
        frames.push_back(shown_name(frame, input.options));
      }
      sites.push_back(Json{{"blocks", site.count.blocks},
                           {"bytes", site.count.bytes},
                           {"backtrace", std::move(frames)}});
    }
    kinds.push_back(Json{{"kind", leak_kind_option(kind)},
                         {"blocks", input.data.leak_kinds->kinds[index].blocks},
                         {"bytes", input.data.leak_kinds->kinds[index].bytes},
                         {"sites", std::move(sites)}});
  }
  out.push_back({{"leaks_by_kind", std::move(kinds)}});
}

// The page's table of loss records: one row a site of a selected kind, valgrind's order (its
// kinds, then most bytes first), frames as the trace names them.
void html(const SectionInput& input, HtmlSectionParts& out) {
  if (!input.data.leak_kinds) {
    return;
  }
  Json rows = Json::array();
  for (const LeakKind kind : kLeakKinds) {
    const auto index = static_cast<std::size_t>(kind);
    if (!input.options.leak_kinds[index]) {
      continue;
    }
    for (const LeakKindTotals::SiteCount& site : input.data.leak_kinds->sites[index]) {
      Json frames = Json::array();
      for (const std::string_view frame : input.data.frame_names(input.data.sites[site.site])) {
        frames.push_back(json_text(frame));
      }
      rows.push_back(Json::array(
          {leak_kind_name(kind), site.count.blocks, site.count.bytes, std::move(frames)}));
    }
  }
  out.tables.push_back(html_table(
      "leaks-by-kind", "Leaks by kind",
      "the allocation sites of the blocks left at the end, by the leak check's kinds (rtrace "
      "record --leak-check), as valgrind's loss records: definitely lost first, most bytes first",
      Json::array({Json::array({"text", "kind"}), Json::array({"count", "blocks"}),
                   Json::array({"bytes", "bytes"}),
                   Json::array({"backtrace", "backtrace (innermost first)"})}),
      std::move(rows)));
}

}  // namespace

ReportSection leaks_by_kind_section() {
  return {.name = "leaks_by_kind", .text = text, .json = json, .html = html};
}

}  // namespace rtrace::reports
