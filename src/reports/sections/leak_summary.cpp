// valgrind's LEAK SUMMARY, in its own words, so that what reads valgrind's summary reads this
// one: the leak check's blocks and bytes by kind, definitely lost first, then those of
// suppressed backtraces. Only for traces with a leak check (rtrace record --leak-check); the
// others' kinds are unknown and the section does not show.
#include <fmt/format.h>

#include <iterator>
#include <string>

#include "reports/section_table.h"

namespace rtrace::reports {
namespace {

// 4242 as "4,242", as valgrind prints its counts.
std::string grouped(std::uint64_t value) {
  std::string digits = std::to_string(value);
  for (std::size_t at = digits.size(); at > 3; at -= 3) {
    digits.insert(at - 3, ",");
  }
  return digits;
}

void summary_line(std::string& out, std::string_view name, const LeakKindTotals::Count& count) {
  fmt::format_to(std::back_inserter(out), "{:>18}: {} bytes in {} blocks\n", name,
                 grouped(count.bytes), grouped(count.blocks));
}

void text(const SectionInput& input, std::string& out) {
  if (!input.data.leak_kinds) {
    return;
  }
  out += "\nLEAK SUMMARY:\n";
  for (const LeakKind kind : kLeakKinds) {
    summary_line(out, leak_kind_name(kind),
                 input.data.leak_kinds->kinds[static_cast<std::size_t>(kind)]);
  }
  summary_line(out, "suppressed", input.data.leak_kinds->suppressed);
}

Json count_json(const LeakKindTotals::Count& count) {
  return Json{{"blocks", count.blocks}, {"bytes", count.bytes}};
}

void json(const SectionInput& input, JsonLines& out) {
  if (!input.data.leak_kinds) {
    return;
  }
  Json summary = Json::object();
  for (const LeakKind kind : kLeakKinds) {
    summary[std::string(leak_kind_option(kind))] =
        count_json(input.data.leak_kinds->kinds[static_cast<std::size_t>(kind)]);
  }
  summary["suppressed"] = count_json(input.data.leak_kinds->suppressed);
  out.push_back({{"leak_summary", std::move(summary)}});
}

// A table of the page, drawn by its script as it is: one row a kind, valgrind's order.
void html(const SectionInput& input, HtmlSectionParts& out) {
  if (!input.data.leak_kinds) {
    return;
  }
  Json rows = Json::array();
  for (const LeakKind kind : kLeakKinds) {
    const LeakKindTotals::Count& count =
        input.data.leak_kinds->kinds[static_cast<std::size_t>(kind)];
    rows.push_back(Json::array({leak_kind_name(kind), count.blocks, count.bytes}));
  }
  rows.push_back(Json::array({"suppressed", input.data.leak_kinds->suppressed.blocks,
                              input.data.leak_kinds->suppressed.bytes}));
  out.tables.push_back(html_table(
      "leak-summary", "Leak summary",
      "the blocks left at the end by the leak check's kinds (rtrace record --leak-check), as "
      "valgrind's LEAK SUMMARY counts them",
      Json::array({Json::array({"text", "kind"}), Json::array({"count", "blocks"}),
                   Json::array({"bytes", "bytes"})}),
      std::move(rows)));
}

}  // namespace

ReportSection leak_summary_section() {
  return {.name = "leak_summary", .text = text, .json = json, .html = html};
}

}  // namespace rtrace::reports
