#include "tracer/core/event_ring.h"

#include <sys/mman.h>
#include <unistd.h>

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

namespace {

// Returns the pages wholly inside the ring bytes [from, to) of `base` (a ring of `capacity` bytes,
// positions wrapping) to the system.
void release_ring_bytes(char* base, std::size_t capacity, std::uint64_t from, std::uint64_t to) {
  // Asked each time: a function-local static would need the C++ runtime's guard, which the
  // tracer's libraries do not link (src/tracer/README.md).
  const auto page = static_cast<std::uint64_t>(::getpagesize());
  if (to - from < page) {
    return;
  }
  if (to - from >= capacity) {
    ::madvise(base, capacity, MADV_DONTNEED);
    return;
  }
  const auto release = [&](std::uint64_t start, std::uint64_t end) {  // offsets in the ring
    const std::uint64_t first = (start + page - 1) & ~(page - 1);
    const std::uint64_t last = end & ~(page - 1);
    if (first < last) {
      ::madvise(base + first, last - first, MADV_DONTNEED);
    }
  };
  const std::uint64_t start = from & (capacity - 1);
  const std::uint64_t end = start + (to - from);
  if (end <= capacity) {
    release(start, end);
  } else {
    release(start, capacity);
    release(0, end - capacity);
  }
}

}  // namespace

void EventRing::release_pages(std::uint64_t payload_to, std::uint64_t entry_to) {
  release_ring_bytes(payload_, payload_capacity_, payload_tail.load(std::memory_order_relaxed),
                     payload_to);
  release_ring_bytes(reinterpret_cast<char*>(index_), entries_ * sizeof(Entry),
                     tail.load(std::memory_order_relaxed) * sizeof(Entry),
                     entry_to * sizeof(Entry));
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
