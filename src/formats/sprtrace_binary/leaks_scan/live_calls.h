// The calls whose blocks are alive so far, or leaked: the leaks stage's rule
// (filters/leaks_filter.h) applied by the leaks scan (leaks_scan.h) to the allocations and releases
// the packet walker found, batch by batch, on the thread that owns this table. Each block alive in
// the live table holds the slot of the call that made it; a block replaced by an allocation of its
// key leaked, and its call is kept as well.
#pragma once

#include <cstdint>
#include <vector>

#include "formats/sprtrace_binary/leaks_scan/leaks_scan.h"
#include "formats/sprtrace_binary/leaks_scan/live_table.h"
#include "formats/sprtrace_binary/leaks_scan/scan_event.h"

namespace rtrace::leaks_scan {

class LiveCalls {
 public:
  // With `keep_released`: the second half's table (LiveTable).
  explicit LiveCalls(bool keep_released) : live_(keep_released) {}
  LiveCalls(const LiveCalls&) = delete;
  LiveCalls& operator=(const LiveCalls&) = delete;

  // The second half: room for about `expected` released keys, made on its own thread.
  void expect_released(std::size_t expected) { live_.expect_released(expected); }

  // The hash the live table looks `id` up with (computed by the walker, on the parsing thread).
  std::uint64_t hash(Address id, std::uint32_t type) const { return live_.hash(id, type); }

  // A resource type whose blocks count references (as effective_resource_type()); only before
  // the first batch, which is handed over under the worker's mutex after it.
  void add_refcounted(std::uint32_t type) { refcounted_.push_back(type); }
  bool any_refcounted() const { return !refcounted_.empty(); }

  // The leaks stage's rule on a batch of allocations and releases, in call order.
  void apply(ScanBatch& events);

  // The join of the halves: what `second` (the next half, on one process) did first to a key it
  // found no block of was a release; it ends this table's block of that key in `process`.
  void release_unseen_of(const LiveCalls& second, std::uint32_t process);

  // The calls of the blocks alive at the end and of those that leaked, appended to `calls`.
  void add_survivors(std::vector<LeaksScanPiece>& calls) const;

 private:
  // An allocation whose resource may still be alive at the end.
  struct Candidate {
    std::uint64_t offset = 0;
    std::uint64_t index = 0;
    std::uint64_t length = 0;
  };
  static constexpr std::size_t kPrefetchDistance = 16;

  // Inlined into the loop over a batch; defined in live_calls.cpp, the one file that calls them.
  [[gnu::always_inline]] inline bool refcounted(std::uint32_t type) const;
  [[gnu::always_inline]] inline void allocate(const ScanEvent& event);
  [[gnu::always_inline]] inline void release(const ScanEvent& event);
  [[gnu::always_inline]] inline std::uint32_t new_slot(const ScanEvent& event);

  LiveTable live_;
  std::vector<std::uint32_t> refcounted_;  // resource types, as effective_resource_type()
  std::vector<Candidate> slots_;           // those in free_slots_ are free
  std::vector<std::uint32_t> free_slots_;
  std::vector<std::uint32_t> leaked_;  // blocks replaced by an allocation of their key: kept
};

}  // namespace rtrace::leaks_scan
