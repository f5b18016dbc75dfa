// The order of the leaks scan's pieces (leaks_scan.h): file order, each call once.
#pragma once

#include <algorithm>
#include <vector>

#include "formats/sprtrace_binary/leaks_scan/leaks_scan.h"

namespace rtrace::leaks_scan {

// A survivor before a routing call at the same offset (then the same call): it is kept. (A
// lambda, not a function: the sorts inline it.)
inline constexpr auto by_offset = [](const LeaksScanPiece& a, const LeaksScanPiece& b) {
  return a.offset != b.offset ? a.offset < b.offset : !a.routing_only && b.routing_only;
};

// Drops the second of two pieces at the same offset: a survivor that is also a routing call is
// delivered whole, once. (Iterator algorithms: clang 14, which builds the fuzzers, rejects
// libstdc++ 12's ranges here.)
inline void drop_repeated(std::vector<LeaksScanPiece>& calls) {
  calls.erase(std::unique(calls.begin(), calls.end(),
                          [](const LeaksScanPiece& a, const LeaksScanPiece& b) {
                            return a.offset == b.offset;
                          }),
              calls.end());
}

// Routing calls and survivors in file order, each call once.
inline void sort_calls(std::vector<LeaksScanPiece>& calls) {
  std::sort(calls.begin(), calls.end(), by_offset);
  drop_repeated(calls);
}

}  // namespace rtrace::leaks_scan
