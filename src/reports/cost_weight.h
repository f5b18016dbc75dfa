// What the call-tree views of the report (bottom-up, top-down, caller/callee) weigh each
// backtrace by: one of a site's amounts, chosen with `rtrace report --weight`.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "reports/report_data.h"

namespace rtrace::reports {

enum class CostWeight : std::uint8_t {
  Peak,         // bytes alive when the site's resource type reached its peak
  Leaked,       // bytes never released (suppressed leaks left out)
  Allocated,    // bytes allocated
  Allocations,  // allocations made
  Temporary,    // allocations released by the very next call
};

// The weight named `name` ("peak", "leaked", "allocated", "allocations", "temporary").
std::optional<CostWeight> cost_weight_named(std::string_view name);

// The weight's name, as cost_weight_named() takes it.
std::string_view cost_weight_name(CostWeight weight);

// What the weight counts, for headings: "peak bytes", "allocations"...
std::string_view cost_weight_title(CostWeight weight);

// Whether the weight is a size (bytes, or resources for a type counted, not weighed) rather
// than a number of calls.
bool cost_weight_is_size(CostWeight weight);

// How much of the weight `site` holds.
std::uint64_t site_cost(const SiteStats& site, CostWeight weight);

}  // namespace rtrace::reports
