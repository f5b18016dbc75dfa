// A bounded timeline of one value (live bytes of a resource type) over a whole trace.
//
// The length of a trace is not known while it streams, so the timeline keeps every stride-th
// change and, when it has 2 * capacity points, drops every other one and doubles the stride:
// memory stays below 2 * capacity points however many calls the trace has, and the points
// stay evenly spread over the calls. The last change is always kept.
#pragma once

#include <cstdint>
#include <vector>

namespace rtrace::exporters {

struct TimelinePoint {
  std::uint64_t time_ns = 0;  // the call's timestamp (see AllocationProfile::clock)
  std::uint64_t index = 0;    // the call that changed the value
  std::uint64_t value = 0;    // after the call
  std::uint64_t blocks = 0;   // live blocks after the call (what `value` is made of)
};

class Timeline {
 public:
  explicit Timeline(std::size_t capacity = 512) : capacity_(capacity) {}

  void add(const TimelinePoint& point);
  // The kept points in call order, the last change included.
  std::vector<TimelinePoint> points() const;

 private:
  std::size_t capacity_;
  std::uint64_t stride_ = 1;
  std::uint64_t seen_ = 0;
  std::vector<TimelinePoint> points_;
  TimelinePoint last_;
};

// At most `count` of `points`, evenly spread, first and last included.
std::vector<TimelinePoint> spread(const std::vector<TimelinePoint>& points, std::size_t count);

}  // namespace rtrace::exporters
