// ALLOCATION SIZES: per sized type, its allocations in power-of-two buckets, as bars. (The JSON
// and the HTML page carry each type's histogram in its object: totals.cpp.)
#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "reports/resource_unit.h"
#include "reports/section_table.h"

namespace rtrace::reports {
namespace {

void append_type(std::string& out, const TypeTotals& t) {
  fmt::format_to(std::back_inserter(out), "  {}:\n", t.type.type);
  const std::uint64_t most = *std::ranges::max_element(t.histogram);
  for (std::size_t bucket = 0; bucket < t.histogram.size(); ++bucket) {
    const std::uint64_t count = t.histogram[bucket];
    if (count == 0) {
      continue;
    }
    const auto bar = static_cast<std::size_t>((count * 40 + most - 1) / most);
    fmt::format_to(std::back_inserter(out), "    {:>20} {:>10} {}\n",
                   fmt::format("{}-{}", bucket_low(bucket), bucket_high(bucket)), count,
                   std::string(bar, '#'));
  }
}

void text(const SectionInput& input, std::string& out) {
  out += "\nALLOCATION SIZES\n";
  for (const TypeTotals& t : input.data.types) {
    // A type counted, not weighed, has one size.
    if (t.allocations != 0 && resource_unit(t).sized) {
      append_type(out, t);
    }
  }
}

}  // namespace

ReportSection histogram_section() {
  return {.name = "histogram", .text = text};
}

}  // namespace rtrace::reports
