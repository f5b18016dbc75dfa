// The per-thread rings of the process and the global ticket order (see trace_session.h for the
// scheme). A thread gets a ring the first time it records something and hands it back when it
// ends; rings of ended threads are reused once drained, so short-lived threads do not add up.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tracer/event_ring.h"

namespace rtrace::tracer {

struct WalkMemo;

inline constexpr std::size_t kMaxRings = 1024;

// `drain_some` is called (without locks held) when a new thread finds no drained ring to reuse.
void rings_init(void (*drain_some)());

// This thread's ring, claimed or created on first use; null when none can be had.
EventRing* my_ring();
// This thread's ring if it has one.
EventRing* current_ring();
// The memory of stack walks that goes with this thread's ring (walk_memo.h); null before the
// thread has a ring (its first record), or when it could not be mapped.
WalkMemo* my_walk_memo();

// The rings, for the drainer: ring_at(i) for i < ring_slots() is null while not set up.
std::size_t ring_slots();
EventRing* ring_at(std::size_t slot);

// Tickets: take one (publishing a lower bound of it first) and give it back after publishing.
std::uint64_t take_ticket(EventRing& ring);
void release_ticket(EventRing& ring);
// The next ticket that will be handed out.
std::uint64_t next_ticket();
// The smallest ticket that may still be published; records below it are final. `ignore` (a
// thread that crashed while holding a ticket) is not waited for.
std::uint64_t safe_bound(const EventRing* ignore);

// In a forked child: the other threads are gone; every ring is emptied and all but the calling
// thread's become reusable.
void reset_rings_after_fork();

}  // namespace rtrace::tracer
