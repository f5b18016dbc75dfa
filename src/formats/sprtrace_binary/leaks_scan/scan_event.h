// What the packet walker (packet_walker.h) hands the live table (live_calls.h): one allocation or
// release per call that makes one, in call order, in batches applied on another thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/records.h"

namespace rtrace::leaks_scan {

// An allocation or release, for the live table once its call's length is known.
struct ScanEvent {
  Address id = 0;
  std::uint64_t hash = 0;  // LiveTable::hash(id, type)
  std::uint64_t offset = 0;
  std::uint64_t index = 0;
  std::uint32_t length = 0;  // of the call with its ARGS and BTRC (longer: the general path)
  std::uint32_t type = 0;
  std::uint16_t process = 0;
  bool alloc = false;
};

using ScanBatch = std::vector<ScanEvent>;

// Events are applied in batches: the live-table slots of a batch are asked for ahead of their
// use, so that the cache misses of many calls overlap instead of stalling one by one.
inline constexpr std::size_t kScanBatch = 8192;

}  // namespace rtrace::leaks_scan
