// The per-thread rings of the process and the global ticket order (see trace_session.h for the
// scheme). A thread gets a ring the first time it records something and hands it back when it
// ends; rings of ended threads are reused once drained, so short-lived threads do not add up.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "tracer/core/event_ring.h"

#if !defined(__x86_64__)
#error "take_ticket relies on x86-64 ordering"
#endif

namespace rtrace::tracer {

struct WalkMemo;

inline constexpr std::size_t kMaxRings = 1024;
// The payload bytes of the smallest ring (a thread's beyond the first 16): a record takes at most
// half a ring, so no record may be larger than half of this.
inline constexpr std::size_t kSmallestRingCapacity = std::size_t{512} * 1024;

// `drain_some` is called (without locks held) when a new thread finds no drained ring to reuse.
void rings_init(void (*drain_some)());

// A ring and the alternate signal stack of the thread that owns it (see signal_stack.h): both go
// to the next thread together.
struct RingSlot {
  EventRing ring;
  void* signal_stack = nullptr;
  // The owner's memory of its last stack walks (walk_memo.h). Here and not thread-local: it is
  // too large for the static TLS block when librtrace-main.so is loaded by the dynamic linker's
  // audit interface (the audit module); and it goes to the next owner with the ring, so that
  // threads that come and go do not add up (an entry is valid for any thread: walk_memo.h).
  WalkMemo* walk_memo = nullptr;
  std::atomic<bool> ready{false};
};

// This thread's slot; null until its first record. Initial-exec: a plain %fs-relative load.
extern constinit thread_local RingSlot* t_ring_slot __attribute__((tls_model("initial-exec")));

// Claims or creates this thread's ring (my_ring's first call).
EventRing* claim_my_ring();

// This thread's ring, claimed or created on first use; null when none can be had. Inline, as the
// two below: every traced call asks.
inline EventRing* my_ring() {
  return t_ring_slot != nullptr ? &t_ring_slot->ring : claim_my_ring();
}
// This thread's ring if it has one.
inline EventRing* current_ring() {
  return t_ring_slot != nullptr ? &t_ring_slot->ring : nullptr;
}
// The memory of stack walks that goes with this thread's ring (walk_memo.h); null before the
// thread has a ring (its first record), or when it could not be mapped.
inline WalkMemo* my_walk_memo() {
  return t_ring_slot != nullptr ? t_ring_slot->walk_memo : nullptr;
}

// The rings, for the drainer: ring_at(i) for i < ring_slots() is null while not set up.
std::size_t ring_slots();
EventRing* ring_at(std::size_t slot);

// The next ticket (thread_rings.cpp); only take_ticket and next_ticket use it. Alone on its
// cache lines (two: the adjacent-line prefetcher pairs them): every traced call's locked add waits
// for the line, and data the drainer writes beside it (the compact encoder's state was) made every
// add wait for the line to come back from the drainer's core: 9-15 ns of every traced call
// (bench/memtransfer-ab.sh).
struct alignas(128) TicketSequence {
  std::atomic<std::uint64_t> next{1};
};
extern TicketSequence g_tickets;

// Tickets: take one (publishing a lower bound of it first) and give it back after publishing.
// Inline: on every traced call's path.
inline std::uint64_t take_ticket(EventRing& ring) {
  if (ring.ticket_depth++ == 0) {
    // The bound must be visible before the ticket is taken. On x86-64 a locked
    // read-modify-write orders every earlier store, so a plain store kept before it by the
    // compiler fence is enough and saves a second locked instruction.
    ring.inflight.store(g_tickets.next.load(std::memory_order_relaxed), std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }
  return g_tickets.next.fetch_add(1, std::memory_order_seq_cst);
}
inline void release_ticket(EventRing& ring) {
  if (--ring.ticket_depth == 0) {
    ring.inflight.store(kNoTicket, std::memory_order_release);
  }
}
// The next ticket that will be handed out.
std::uint64_t next_ticket();
// The smallest ticket that may still be published; records below it are final. `ignore` (a
// thread that crashed while holding a ticket) is not waited for.
std::uint64_t safe_bound(const EventRing* ignore);

// In a forked child: the other threads are gone; every ring is emptied and all but the calling
// thread's become reusable.
void reset_rings_after_fork();

}  // namespace rtrace::tracer
