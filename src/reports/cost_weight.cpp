#include "reports/cost_weight.h"

#include <array>
#include <utility>

namespace rtrace::reports {
namespace {

struct WeightText {
  CostWeight weight;
  std::string_view name;
  std::string_view title;
};

constexpr std::array<WeightText, 5> kWeights{{
    {CostWeight::Peak, "peak", "peak bytes"},
    {CostWeight::Leaked, "leaked", "leaked bytes"},
    {CostWeight::Allocated, "allocated", "bytes allocated"},
    {CostWeight::Allocations, "allocations", "allocations"},
    {CostWeight::Temporary, "temporary", "temporary allocations"},
}};

const WeightText& text_of(CostWeight weight) {
  return kWeights[static_cast<std::size_t>(weight)];
}

}  // namespace

std::optional<CostWeight> cost_weight_named(std::string_view name) {
  for (const WeightText& text : kWeights) {
    if (text.name == name) {
      return text.weight;
    }
  }
  return std::nullopt;
}

std::string_view cost_weight_name(CostWeight weight) {
  return text_of(weight).name;
}

std::string_view cost_weight_title(CostWeight weight) {
  return text_of(weight).title;
}

bool cost_weight_is_size(CostWeight weight) {
  return weight == CostWeight::Peak || weight == CostWeight::Leaked ||
         weight == CostWeight::Allocated;
}

std::uint64_t site_cost(const SiteStats& site, CostWeight weight) {
  switch (weight) {
    case CostWeight::Peak:
      return site.peak_bytes;
    case CostWeight::Leaked:
      return site.suppressed ? 0 : site.leaked_bytes;
    case CostWeight::Allocated:
      return site.bytes_allocated;
    case CostWeight::Allocations:
      return site.allocations;
    case CostWeight::Temporary:
      return site.temporary;
  }
  return 0;
}

}  // namespace rtrace::reports
