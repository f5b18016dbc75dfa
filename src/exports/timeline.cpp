#include "exports/timeline.h"

namespace rtrace::exporters {

void Timeline::add(const TimelinePoint& point) {
  last_ = point;
  if (seen_++ % stride_ != 0) {
    return;
  }
  points_.push_back(point);
  if (points_.size() >= 2 * capacity_) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < points_.size(); i += 2) {
      points_[kept++] = points_[i];
    }
    points_.resize(kept);
    stride_ *= 2;
  }
}

std::vector<TimelinePoint> Timeline::points() const {
  std::vector<TimelinePoint> all = points_;
  if (seen_ > 0 && (all.empty() || all.back().index != last_.index)) {
    all.push_back(last_);
  }
  return all;
}

std::vector<TimelinePoint> spread(const std::vector<TimelinePoint>& points, std::size_t count) {
  if (points.size() <= count || count < 2) {
    return points;
  }
  std::vector<TimelinePoint> picked;
  picked.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    picked.push_back(points[i * (points.size() - 1) / (count - 1)]);
  }
  return picked;
}

}  // namespace rtrace::exporters
