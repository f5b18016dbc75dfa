// `rtrace report --diff OTHER`: what grew from the OTHER (baseline) trace to this one.
//
// Backtraces are matched by resource type and, frame by frame, by what stays the same across
// runs under address randomisation: the module and the offset in it where the trace's memory
// maps place the frame (binary traces, text traces with maps), else the resolved function,
// file and line (resolved text traces), never the raw address unless nothing else is known.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reports/report_data.h"
#include "reports/resource_unit.h"

namespace rtrace::reports {

struct Growth {
  std::int64_t allocations = 0;
  std::int64_t bytes_allocated = 0;
  std::int64_t leaked_blocks = 0;
  std::int64_t leaked_bytes = 0;
  std::int64_t peak_bytes = 0;
};

struct TypeGrowth {
  std::string type;
  Growth growth;
  ResourceUnit unit;  // what the type is counted in; bytes only when `unit.sized`
};

struct SiteGrowth {
  std::string type;
  std::vector<std::string> frame_names;  // its own: the diff outlives the reports it compares
  Growth growth;
  ResourceUnit unit;
};

struct ReportDiff {
  std::vector<TypeGrowth> types;  // every type of either trace, this trace's order first
  std::vector<SiteGrowth> sites;  // sites that grew: leaked bytes, then bytes allocated, desc
};

ReportDiff diff_reports(const ReportData& current, const ReportData& baseline);

}  // namespace rtrace::reports
