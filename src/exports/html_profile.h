// What the HTML report (html_report.h) draws from the calls themselves, beside the figures of
// `rtrace report`: each resource type's live bytes and live blocks over time, and its
// allocations as a tree of frames weighing leaked bytes, bytes alive at the peak, bytes
// allocated and allocation counts at once (the page switches between them without a reload).
//
// Both are aggregated here, in C++, so that the page stays small and fast whatever the trace:
// the timeline has at most kTimelinePoints points per type (the peak always among them), and the
// tree is made from the report's calling-context tree (one node per distinct path of frame
// names) and leaves out the nodes that hold less than a share of every weight of their type.
#pragma once

#include <cstddef>
#include <string>

#include "exports/allocation_profile.h"
#include "reports/report_data.h"

namespace rtrace::exporters {

class HtmlProfile final : public AllocationProfile {
 public:
  static constexpr std::size_t kTimelinePoints = 2000;
  // The share of every weight of its type under which a node of the flame graph is left out by
  // default (--html-min-share): the page of a trace of a million distinct backtraces stays a
  // few megabytes.
  static constexpr double kDefaultMinShare = 0.001;

  // The timelines only: the flame graph comes from the report's tree.
  HtmlProfile() : AllocationProfile(false) {}

  void finish() override { settle(); }

  // Valid after finish(); one entry per resource type that allocated anything. Each appends
  // compact JSON to `out` (a page of a large trace holds millions of numbers: no copies).
  // A JSON array of {"type", "peak": [time_ns, call, bytes, blocks],
  // "points": [time_ns, call, bytes, blocks, time_ns, ...]}, times relative to the first
  // timestamp of the trace (all 0 when it has none).
  void append_timelines_json(std::string& out) const;
  // A JSON object {"names": [...], "trees": [{"type", "nodes": [depth, name, allocated, leaked,
  // peak, count, temporary, depth, ...]}]}: each tree's nodes in depth-first order from its root
  // ("all", depth 0), `name` an index into "names", each weight the node's inclusive figure;
  // the trees of `data` (the report of the same trace), without the nodes that hold less than
  // `min_share` of each weight of their type (and those beneath them). When nodes were left out,
  // "pruned": {"nodes": how many, "min_share"} follows the trees.
  void append_flame_json(std::string& out, const reports::ReportData& data, double min_share) const;
};

}  // namespace rtrace::exporters
