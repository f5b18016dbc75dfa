// What the HTML report (html_report.h) draws from the calls themselves, beside the figures of
// `rtrace report`: each resource type's live bytes and live blocks over time, and its
// allocations as a tree of frames weighing leaked bytes, bytes alive at the peak, bytes
// allocated and allocation counts at once (the page switches between them without a reload).
//
// Both are aggregated here, in C++, so that the page stays small and fast whatever the trace:
// the timeline has at most kTimelinePoints points per type (the peak always among them) and the
// tree one node per distinct frame path.
#pragma once

#include <cstddef>
#include <string>

#include "exports/allocation_profile.h"

namespace rtrace::exporters {

class HtmlProfile final : public AllocationProfile {
 public:
  static constexpr std::size_t kTimelinePoints = 2000;

  void finish() override { settle(); }

  // Valid after finish(); one entry per resource type that allocated anything. Each appends
  // compact JSON to `out` (a page of a large trace holds millions of numbers: no copies).
  // A JSON array of {"type", "peak": [time_ns, call, bytes, blocks],
  // "points": [time_ns, call, bytes, blocks, time_ns, ...]}, times relative to the first
  // timestamp of the trace (all 0 when it has none).
  void append_timelines_json(std::string& out) const;
  // A JSON object {"names": [...], "trees": [{"type", "nodes": [depth, name, allocated, leaked,
  // peak, count, depth, ...]}]}: each tree's nodes in depth-first order from its root ("all",
  // depth 0), `name` an index into "names", the weights in the order of the Weight enumeration.
  void append_flame_json(std::string& out) const;
};

}  // namespace rtrace::exporters
