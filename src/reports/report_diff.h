// `rtrace report --diff OTHER`: what grew from the OTHER (baseline) trace to this one.
//
// Backtraces are matched by resource type and frame names (resolved names when the traces
// carry them, else addresses with their modules), so two runs of one binary without address
// randomisation, or two resolved traces, line up.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reports/report_data.h"

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
};

struct SiteGrowth {
  std::string type;
  std::vector<std::string> frame_names;
  Growth growth;
};

struct ReportDiff {
  std::vector<TypeGrowth> types;  // every type of either trace, this trace's order first
  std::vector<SiteGrowth> sites;  // sites that grew: leaked bytes, then bytes allocated, desc
};

ReportDiff diff_reports(const ReportData& current, const ReportData& baseline);

}  // namespace rtrace::reports
