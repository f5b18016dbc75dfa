#include "tracer/core/event_ring.h"

#include <sys/mman.h>

namespace rtrace::tracer {

bool EventRing::create(std::size_t payload_capacity, std::size_t entries) {
  const auto power_of_two = [](std::size_t n) { return n != 0 && (n & (n - 1)) == 0; };
  if (!power_of_two(payload_capacity) || !power_of_two(entries)) {
    return false;
  }
  const std::size_t index_bytes = entries * sizeof(Entry);
  void* memory = ::mmap(nullptr, payload_capacity + index_bytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) {
    return false;
  }
  payload_ = static_cast<char*>(memory);
  payload_capacity_ = payload_capacity;
  index_ = reinterpret_cast<Entry*>(payload_ + payload_capacity);
  entries_ = entries;
  return true;
}

void EventRing::void_record(std::uint64_t position) {
  Entry& entry = index_[position & (entries_ - 1)];
  entry.skip += entry.length;
  entry.length = 0;
}

void EventRing::reset() {
  head.store(0, std::memory_order_relaxed);
  tail.store(0, std::memory_order_relaxed);
  payload_tail.store(0, std::memory_order_relaxed);
  inflight.store(kNoTicket, std::memory_order_relaxed);
  ticket_depth = 0;
  payload_head_ = 0;
  pending_skip_ = 0;
  seen_tail_ = 0;
  seen_payload_tail_ = 0;
  producer_frames.count = 0;
  consumer_frames.count = 0;
}

}  // namespace rtrace::tracer
