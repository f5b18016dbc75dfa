#include "formats/sprtrace_binary/leaks_scan/live_calls.h"

#include <algorithm>

namespace rtrace::leaks_scan {

bool LiveCalls::refcounted(std::uint32_t type) const {
  return !refcounted_.empty() &&
         std::find(refcounted_.begin(), refcounted_.end(), type) != refcounted_.end();
}

// On the worker: the slots of the events kPrefetchDistance ahead are asked for while each event
// is applied.
void LiveCalls::apply(ScanBatch& events) {
  const ScanEvent* const event = events.data();
  const std::size_t count = events.size();
  for (std::size_t i = 0; i < std::min(kPrefetchDistance, count); ++i) {
    live_.prefetch(event[i].process, event[i].hash, event[i].alloc);
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (i + kPrefetchDistance < count) {
      const ScanEvent& ahead = event[i + kPrefetchDistance];
      live_.prefetch(ahead.process, ahead.hash, ahead.alloc);
    }
    if (event[i].alloc) {
      allocate(event[i]);
    } else {
      release(event[i]);
    }
  }
}

void LiveCalls::allocate(const ScanEvent& e) {
  std::uint32_t replaced = LiveTable::kNone;
  if (std::uint32_t* slot =
          live_.allocate(e.id, e.type, e.process, refcounted(e.type), e.hash, replaced)) {
    if (replaced != LiveTable::kNone) [[unlikely]] {
      leaked_.push_back(replaced);  // never freed: its slot stays
    }
    *slot = new_slot(e);
  }
}

void LiveCalls::release(const ScanEvent& e) {
  const std::uint32_t slot = live_.release(e.id, e.type, e.process, refcounted(e.type), e.hash);
  if (slot != LiveTable::kNone) {
    free_slots_.push_back(slot);
    __builtin_prefetch(&slots_[slot], 1);  // the next allocation writes it
  }
}

void LiveCalls::release_unseen_of(const LiveCalls& second, std::uint32_t process) {
  for (const auto& [unused, key] : second.live_.released_unseen()) {
    const std::uint32_t slot =
        live_.release(key.id, key.type, process, false, live_.hash(key.id, key.type));
    if (slot != LiveTable::kNone) {
      free_slots_.push_back(slot);
    }
  }
}

std::uint32_t LiveCalls::new_slot(const ScanEvent& event) {
  const Candidate candidate{.offset = event.offset, .index = event.index, .length = event.length};
  if (!free_slots_.empty()) {
    const std::uint32_t slot = free_slots_.back();
    free_slots_.pop_back();
    slots_[slot] = candidate;
    return slot;
  }
  slots_.push_back(candidate);
  return static_cast<std::uint32_t>(slots_.size() - 1);
}

void LiveCalls::add_survivors(std::vector<LeaksScanPiece>& calls) const {
  const auto add = [&](std::uint32_t slot) {
    const Candidate& c = slots_[slot];
    calls.push_back({.offset = c.offset, .length = c.length, .call_index = c.index});
  };
  live_.for_each_candidate(add);
  for (const std::uint32_t slot : leaked_) {
    add(slot);
  }
}

}  // namespace rtrace::leaks_scan
