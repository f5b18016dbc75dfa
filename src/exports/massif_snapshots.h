// The snapshots of a massif file, taken while the trace streams: massif's own scheme of a
// snapshot at regular intervals, every detailed_freq-th one detailed (the bytes alive from each
// site at that moment, for its allocation tree).
//
// The length of a trace is not known while it streams, so the series keeps every stride-th
// change of the live bytes; when it holds more than `capacity` snapshots it drops every other
// one and doubles the stride, as Timeline does, so that the snapshots stay evenly spread over the
// calls. A snapshot's ordinal is its change's number divided by the stride, and it is detailed
// when its ordinal is a multiple of detailed_freq: halving keeps the even ordinals, and the new
// detailed ones (multiples of 2 * detailed_freq before) were detailed already, so no moment's
// sites are ever needed after it has passed. Memory: `capacity` snapshots, and the live sites
// of the detailed ones.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "exports/timeline.h"

namespace rtrace::exporters {

// A site (an index into AllocationProfile::sites()) and the bytes alive from it.
using SiteBytes = std::pair<std::uint32_t, std::uint64_t>;

struct MassifSnapshot {
  TimelinePoint point;
  bool detailed = false;
  std::vector<SiteBytes> sites{};  // when detailed: every site with bytes alive
};

class MassifSnapshots {
 public:
  MassifSnapshots(std::size_t capacity, std::size_t detailed_freq);

  enum class Take : std::uint8_t { No, Plain, Detailed };
  // What the next change of the live bytes becomes: nothing, a snapshot, or a detailed one
  // (whose sites the caller then collects).
  Take next() const;
  // The next change; `sites` only for a detailed one.
  void add(const TimelinePoint& point, std::vector<SiteBytes> sites);

  // The snapshots in call order.
  const std::vector<MassifSnapshot>& snapshots() const { return snapshots_; }
  // The last change (seen when changes() > 0): the trace's end state.
  const TimelinePoint& last() const { return last_; }
  std::uint64_t changes() const { return seen_; }

 private:
  void halve();

  std::size_t capacity_;
  std::uint64_t detailed_freq_;
  std::uint64_t stride_ = 1;
  std::uint64_t seen_ = 0;
  std::vector<MassifSnapshot> snapshots_;
  TimelinePoint last_;
};

}  // namespace rtrace::exporters
