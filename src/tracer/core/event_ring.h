// A per-thread ring of encoded events: one producer (the thread that owns it), one consumer (the
// thread that drains all rings into the output, holding the drain lock). No locks: the producer
// publishes with a release store of `head`, the consumer frees space with release stores of
// `tail` and `payload_tail`.
//
// Each side writes its own cache lines (the index positions each side publishes, the producer's
// private state, the read-only geometry): a line written by both sides moves between the cores
// on every record. The producer keeps copies of the consumer's positions and reads the real ones
// only when its copies say the ring is full or filling, which happens about once per drain.
//
// Two parts: the payload bytes (encoded packets, back to back, so that a run of records goes to
// the output as one piece, without copying) and an index with one entry per record: its ticket,
// its length and how many payload bytes were skipped before it (a record never wraps; when it
// would, the producer skips to the start of the payload area).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "tracer/output/shared_frames.h"

namespace rtrace::tracer {

inline constexpr std::uint64_t kNoTicket = UINT64_MAX;

class EventRing {
 public:
  struct Entry {
    std::uint64_t seq;
    std::uint32_t length;
    std::uint32_t skip;
  };

  // Maps `payload_capacity` bytes of payload and an index of `entries` records; false when mmap
  // fails, or when either is not a power of two (positions wrap with a mask: a division on every
  // traced call cost more than the rest of the ring's work).
  bool create(std::size_t payload_capacity, std::size_t entries);

  // Producer: space for a payload of up to `max_payload` bytes, or null when the ring cannot hold
  // it right now (the caller drains and retries). Inline, as publish: every traced call takes
  // both, and out of line they were ~50 instructions of calls and reloads of the ring's fields
  // per call (bench/callgrind-memtransfer.sh).
  __attribute__((always_inline)) char* try_reserve(std::size_t max_payload) {
    if (max_payload > payload_capacity_ / 2) {
      return nullptr;
    }
    const std::uint64_t position = head.load(std::memory_order_relaxed);
    const std::size_t offset = payload_head_ & (payload_capacity_ - 1);
    const std::size_t skip =
        payload_capacity_ - offset < max_payload ? payload_capacity_ - offset : 0;
    const auto has_room = [&] {
      return position - seen_tail_ < entries_ &&
             payload_capacity_ - (payload_head_ - seen_payload_tail_) >= skip + max_payload;
    };
    if (__builtin_expect(!has_room(), 0)) {
      refresh_consumer_positions();
      if (!has_room()) {
        return nullptr;
      }
    }
    pending_skip_ = static_cast<std::uint32_t>(skip);
    return payload_ + ((payload_head_ + skip) & (payload_capacity_ - 1));
  }
  // Producer: publishes the reserved record with its real payload length.
  __attribute__((always_inline)) void publish(std::uint64_t seq, std::size_t payload_length) {
    const std::uint64_t position = head.load(std::memory_order_relaxed);
    index_[position & (entries_ - 1)] =
        Entry{seq, static_cast<std::uint32_t>(payload_length), pending_skip_};
    payload_head_ += pending_skip_ + payload_length;
    head.store(position + 1, std::memory_order_release);
  }
  // Producer: turns the published record `position` into nothing (its bytes skipped). Only for a
  // record the consumer cannot take yet: its ticket is still held (see session_hold).
  void void_record(std::uint64_t position);
  std::size_t capacity() const { return payload_capacity_; }
  // Producer: whether a quarter of the ring is in use (time to wake the drainer).
  bool filling() {
    if (!looks_filling()) {
      return false;  // the copies of the consumer's positions are older: the ring is no fuller
    }
    refresh_consumer_positions();
    return looks_filling();
  }

  // Consumer: the index entry number `position` (< head) and where its payload starts, given
  // the payload position after the previous record.
  const Entry& entry(std::uint64_t position) const { return index_[position & (entries_ - 1)]; }
  const char* payload(std::uint64_t payload_position) const {
    return payload_ + (payload_position & (payload_capacity_ - 1));
  }

  // Consumer, just before it gives back the room up to `payload_to` and `entry_to`: returns the
  // pages wholly inside that room to the system (MADV_DONTNEED), so that a ring's resident memory
  // follows what it holds, not the most it ever held (a 64-thread program grew by 3 MiB a thread).
  // Only room not yet given back: the producer never writes there meanwhile.
  void release_pages(std::uint64_t payload_to, std::uint64_t entry_to);

  // Drops everything (used in a forked child, where the owning threads are gone).
  void reset();

  // Written by the producer on every record; read by the consumer once per merge pass.
  alignas(64) std::atomic<std::uint64_t> head{0};  // index entries published
  // A lower bound of the ticket this thread holds while it is between taking a ticket and
  // publishing the record; kNoTicket when it holds none.
  std::atomic<std::uint64_t> inflight{kNoTicket};
  int ticket_depth = 0;    // producer only: nested tickets (realloc holds two)
  bool wake_sent = false;  // producer only: the drainer was woken for this filling

 private:
  std::uint64_t payload_head_ = 0;  // producer only: payload bytes written (skips included)
  std::uint32_t pending_skip_ = 0;  // producer only: the skip of the reserved record
  // Producer only: copies of `tail` and `payload_tail` (never ahead of them).
  std::uint64_t seen_tail_ = 0;
  std::uint64_t seen_payload_tail_ = 0;

 public:
  // Written by the consumer after each merge pass; read by the producer when its copies of
  // them say the ring is full or filling.
  alignas(64) std::atomic<std::uint64_t> tail{0};  // index entries consumed
  std::atomic<std::uint64_t> payload_tail{0};      // payload bytes consumed (skips included)

  // The kernel's id of the owning thread; 0 when the ring is free. Ownership passes only by a
  // compare-and-swap of this word, so two threads can never own one ring.
  alignas(64) std::atomic<int> owner_tid{0};
  // The kernel's id of the thread whose records the ring holds: its owner's, kept when the owner
  // ends (its last records are merged after), replaced only by a new owner, which takes the ring
  // only once it is drained (the compact format's THREAD records, record_merge.cpp).
  std::atomic<int> records_tid{0};

 private:
  // Set by create; read by both sides on every record.
  char* payload_ = nullptr;
  std::size_t payload_capacity_ = 0;
  Entry* index_ = nullptr;
  std::size_t entries_ = 0;

 public:
  // The frames of the ring's last transient record (shared_frames.h): the producer's copy and
  // the consumer's, each on cache lines of its own (written on every transfer, by either side).
  alignas(64) SharedFrames producer_frames;
  alignas(64) SharedFrames consumer_frames;

 private:
  bool looks_filling() const {
    return (payload_head_ - seen_payload_tail_) * 4 > payload_capacity_ ||
           (head.load(std::memory_order_relaxed) - seen_tail_) * 4 > entries_;
  }
  // Acquire: the consumer is done with the room its positions give back before we write there.
  void refresh_consumer_positions() {
    seen_tail_ = tail.load(std::memory_order_acquire);
    seen_payload_tail_ = payload_tail.load(std::memory_order_acquire);
  }
};

}  // namespace rtrace::tracer
