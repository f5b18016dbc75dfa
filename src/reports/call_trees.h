// The call-tree views of `rtrace report` over one weight (cost_weight.h), one tree per resource
// type: bottom-up (each allocating function, its callers beneath), top-down (from the entry
// points down) and the callers and callees of the functions a pattern names. Built from the
// report's calling-context tree through FunctionStacks: each distinct frame is expanded once,
// each site walked once per view.
#pragma once

#include <cstdint>
#include <regex>
#include <vector>

#include "reports/cost_weight.h"
#include "reports/function_stacks.h"
#include "reports/function_tree.h"
#include "reports/report_data.h"

namespace rtrace::reports {

enum class TreeDirection : std::uint8_t {
  BottomUp,  // from the innermost function out to the entry point
  TopDown,   // from the entry point in to the innermost function
};

// One resource type's tree.
struct TypeCallTree {
  const TypeTotals* totals = nullptr;
  FunctionTree tree{};
  // By function number: what the backtraces through the function cost, each backtrace once
  // however often the function recurs in it (the function's inclusive cost).
  std::vector<std::uint64_t> function_cost{};
};

// The types the weight means something for (no holding weight for a type of transfers) with
// something of it, in the report's order, each with its tree.
std::vector<TypeCallTree> call_trees(const ReportData& data, FunctionStacks& stacks,
                                     CostWeight weight, TreeDirection direction);

// A function's neighbourhood: its callers (a bottom-up tree from the function out) and its
// callees (a top-down tree from the function in). In a backtrace where the function recurs, its
// outermost call stands for it.
struct FunctionNeighbours {
  std::uint32_t function = 0;
  std::uint64_t self = 0;       // allocated in the function itself
  std::uint64_t inclusive = 0;  // allocated in it or what it calls
  FunctionTree callers{};
  FunctionTree callees{};
};

struct TypeNeighbours {
  const TypeTotals* totals = nullptr;
  std::vector<FunctionNeighbours> functions{};  // most inclusive first
};

// For each type (as call_trees), the `top` functions whose names `pattern` finds
// (std::regex_search) with most of the weight, their callers and callees; a type none of whose
// backtraces holds such a function has no functions.
std::vector<TypeNeighbours> callers_and_callees(const ReportData& data, FunctionStacks& stacks,
                                                CostWeight weight, const std::regex& pattern,
                                                std::size_t top);

}  // namespace rtrace::reports
