#include "exports/massif_snapshots.h"

#include <algorithm>

namespace rtrace::exporters {

MassifSnapshots::MassifSnapshots(std::size_t capacity, std::size_t detailed_freq)
    : capacity_(std::max<std::size_t>(capacity, 2)),
      detailed_freq_(std::max<std::size_t>(detailed_freq, 1)) {}

MassifSnapshots::Take MassifSnapshots::next() const {
  if (seen_ % stride_ != 0) {
    return Take::No;
  }
  return (seen_ / stride_) % detailed_freq_ == 0 ? Take::Detailed : Take::Plain;
}

void MassifSnapshots::add(const TimelinePoint& point, std::vector<SiteBytes> sites) {
  last_ = point;
  const Take take = next();
  ++seen_;
  if (take == Take::No) {
    return;
  }
  snapshots_.push_back({.point = point, .detailed = take == Take::Detailed, .sites = {}});
  if (take == Take::Detailed) {
    snapshots_.back().sites = std::move(sites);
  }
  if (snapshots_.size() > capacity_) {
    halve();
  }
}

void MassifSnapshots::halve() {
  // Ordinal i becomes i / 2 for the even ones; detailed stays true only for the multiples of
  // 2 * detailed_freq, whose sites were collected when they were taken.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < snapshots_.size(); i += 2) {
    MassifSnapshot& snapshot = snapshots_[kept];
    if (kept != i) {
      snapshot = std::move(snapshots_[i]);
    }
    ++kept;
    if ((i / 2) % detailed_freq_ != 0) {
      snapshot.detailed = false;
      snapshot.sites = {};
    }
  }
  snapshots_.resize(kept);
  stride_ *= 2;
}

}  // namespace rtrace::exporters
