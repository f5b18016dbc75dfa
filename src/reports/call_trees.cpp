#include "reports/call_trees.h"

#include <algorithm>
#include <unordered_map>

#include "filters/live_resources.h"
#include "reports/resource_unit.h"

namespace rtrace::reports {
namespace {

// A weight of what is held (the peak, leaks, temporaries) means nothing for a type of
// transfers, which holds nothing.
bool weighs(const TypeTotals& type, CostWeight weight) {
  if (type.calls == 0) {
    return false;
  }
  return !resource_unit(type).transfers || weight == CostWeight::Allocated ||
         weight == CostWeight::Allocations;
}

// The types `weight` applies to, by their sites' type id, as indices into `out`; `make` makes
// each one's entry.
template <typename Entry, typename Make>
std::unordered_map<std::uint32_t, std::size_t> weighed_types(const ReportData& data,
                                                             CostWeight weight,
                                                             std::vector<Entry>& out, Make make) {
  std::unordered_map<std::uint32_t, std::size_t> index;
  for (const TypeTotals& t : data.types) {
    if (weighs(t, weight) &&
        index.try_emplace(effective_resource_type(t.type.id), out.size()).second) {
      out.push_back(make(t));
    }
  }
  return index;
}

// Orders the children of every node by cost, then by name.
void sort_tree(FunctionTree& tree, const FunctionStacks& stacks) {
  tree.sort([&](std::uint32_t a, std::uint32_t b) { return stacks.name(a) < stacks.name(b); });
}

// Counts each function of `stack` once into `cost`; `seen` remembers, by function, the
// `stamp` of the backtrace that counted it last.
void add_once(std::span<const std::uint32_t> stack, std::uint64_t value, std::uint64_t stamp,
              std::vector<std::uint64_t>& cost, std::vector<std::uint64_t>& seen) {
  for (const std::uint32_t function : stack) {
    if (function >= cost.size()) {
      cost.resize(function + std::size_t{1});
      seen.resize(function + std::size_t{1});
    }
    if (seen[function] != stamp) {
      seen[function] = stamp;
      cost[function] += value;
    }
  }
}

}  // namespace

std::vector<TypeCallTree> call_trees(const ReportData& data, FunctionStacks& stacks,
                                     CostWeight weight, TreeDirection direction) {
  std::vector<TypeCallTree> trees;
  const auto index = weighed_types(data, weight, trees,
                                   [](const TypeTotals& t) { return TypeCallTree{.totals = &t}; });
  std::vector<std::uint64_t> seen;
  std::uint64_t stamp = 0;
  for (const SiteStats& site : data.sites) {
    const std::uint64_t cost = site_cost(site, weight);
    const auto type = index.find(site.type);
    if (cost == 0 || type == index.end()) {
      continue;
    }
    TypeCallTree& tree = trees[type->second];
    const std::span<const std::uint32_t> stack = stacks.of(site);
    if (direction == TreeDirection::BottomUp) {
      tree.tree.add_path(stack, cost);
    } else {
      tree.tree.add_reversed_path(stack, cost);
    }
    add_once(stack, cost, ++stamp, tree.function_cost, seen);
  }
  std::erase_if(trees, [](const TypeCallTree& tree) { return tree.tree.root().inclusive == 0; });
  for (TypeCallTree& tree : trees) {
    sort_tree(tree.tree, stacks);
  }
  return trees;
}

namespace {

// The functions whose names `pattern` finds, by function number, decided once per function.
class MatchingFunctions {
 public:
  MatchingFunctions(const FunctionStacks& stacks, const std::regex& pattern)
      : stacks_(stacks), pattern_(pattern) {}

  bool operator()(std::uint32_t function) {
    if (function >= matches_.size()) {
      matches_.resize(stacks_.count(), kUnknown);
    }
    if (matches_[function] == kUnknown) {
      matches_[function] = std::regex_search(stacks_.name(function), pattern_) ? kYes : kNo;
    }
    return matches_[function] == kYes;
  }

 private:
  static constexpr std::uint8_t kUnknown = 0;
  static constexpr std::uint8_t kNo = 1;
  static constexpr std::uint8_t kYes = 2;
  const FunctionStacks& stacks_;
  const std::regex& pattern_;
  std::vector<std::uint8_t> matches_;
};

// Where the function's outermost call lies in `stack` (innermost first), if it is there.
std::optional<std::size_t> outermost(std::span<const std::uint32_t> stack, std::uint32_t function) {
  for (std::size_t i = stack.size(); i-- > 0;) {
    if (stack[i] == function) {
      return i;
    }
  }
  return std::nullopt;
}

// The `top` matching functions of each type with the most of the weight, ordered.
std::vector<TypeNeighbours> chosen_functions(const ReportData& data, FunctionStacks& stacks,
                                             CostWeight weight, MatchingFunctions& matches,
                                             std::size_t top) {
  std::vector<TypeCallTree> costs = call_trees(data, stacks, weight, TreeDirection::BottomUp);
  std::vector<TypeNeighbours> chosen;
  for (const TypeCallTree& type : costs) {
    TypeNeighbours& neighbours = chosen.emplace_back(TypeNeighbours{.totals = type.totals});
    for (std::uint32_t f = 0; f < type.function_cost.size(); ++f) {
      if (type.function_cost[f] != 0 && matches(f)) {
        neighbours.functions.push_back({.function = f, .inclusive = type.function_cost[f]});
      }
    }
    std::ranges::sort(neighbours.functions, [&](const auto& a, const auto& b) {
      return a.inclusive != b.inclusive ? a.inclusive > b.inclusive
                                        : stacks.name(a.function) < stacks.name(b.function);
    });
    if (neighbours.functions.size() > top) {
      neighbours.functions.resize(top);
    }
  }
  return chosen;
}

}  // namespace

std::vector<TypeNeighbours> callers_and_callees(const ReportData& data, FunctionStacks& stacks,
                                                CostWeight weight, const std::regex& pattern,
                                                std::size_t top) {
  MatchingFunctions matches(stacks, pattern);
  std::vector<TypeNeighbours> types = chosen_functions(data, stacks, weight, matches, top);
  std::unordered_map<std::uint64_t, FunctionNeighbours*> chosen;  // type << 32 | function
  for (TypeNeighbours& type : types) {
    for (FunctionNeighbours& function : type.functions) {
      chosen.emplace(
          std::uint64_t{effective_resource_type(type.totals->type.id)} << 32 | function.function,
          &function);
    }
  }
  for (const SiteStats& site : data.sites) {
    const std::uint64_t cost = site_cost(site, weight);
    if (cost == 0) {
      continue;
    }
    const std::span<const std::uint32_t> stack = stacks.of(site);
    for (std::size_t i = 0; i < stack.size(); ++i) {
      const auto found = chosen.find(std::uint64_t{site.type} << 32 | stack[i]);
      // Each chosen function once per backtrace: at its outermost call.
      if (found == chosen.end() || outermost(stack, stack[i]) != i) {
        continue;
      }
      FunctionNeighbours& f = *found->second;
      f.self += i == 0 ? cost : 0;
      f.callers.add_path(stack.subspan(i + 1), cost);
      f.callees.add_reversed_path(stack.first(i), cost);
    }
  }
  for (TypeNeighbours& type : types) {
    for (FunctionNeighbours& function : type.functions) {
      sort_tree(function.callers, stacks);
      sort_tree(function.callees, stacks);
    }
  }
  std::erase_if(types, [](const TypeNeighbours& type) { return type.functions.empty(); });
  return types;
}

}  // namespace rtrace::reports
