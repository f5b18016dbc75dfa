// The producer's side of its thread's ring (thread_rings.h) during a session: room for a record
// (waiting for, or doing, a drain when the ring is full), and publishing it. Hot path: no locks,
// no allocation.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tracer/core/event_ring.h"
#include "tracer/core/thread_rings.h"
#include "tracer/session/session_state.h"

namespace rtrace::tracer {

// Space for a record of up to `max_payload` bytes in `ring` when the ring is full: waits for (or
// does) a drain; null when there is none to be had (a record too large for the ring, or no
// session tracing).
char* reserve_after_drain(EventRing& ring, std::size_t max_payload);
// Space for a record of up to `max_payload` bytes in `ring` (inline: every traced call takes
// this path); null as reserve_after_drain.
__attribute__((always_inline)) inline char* reserve(EventRing& ring, std::size_t max_payload) {
  if (char* space = ring.try_reserve(max_payload)) {
    return space;
  }
  return reserve_after_drain(ring, max_payload);
}
// What after_publish does besides giving back the ticket when the session is unbuffered or the
// ring is filling: writes the record out now, or wakes the drainer (once per filling).
void after_publish_slow(EventRing& ring);
// Gives back the ticket of a record just published (or settled); in unbuffered mode writes it
// out now. Inline, as publish: on every traced call's path.
__attribute__((always_inline)) inline void after_publish(EventRing& ring) {
  release_ticket(ring);
  if (__builtin_expect(g_session.options.buffered && !ring.wake_sent, 1) && !ring.filling()) {
    return;
  }
  after_publish_slow(ring);
}
// Publishes an encoded record and gives back the ticket; in unbuffered mode writes it out now.
__attribute__((always_inline)) inline void publish(EventRing& ring, std::uint64_t ticket,
                                                   std::size_t length) {
  ring.publish(ticket, length);
  after_publish(ring);
}

}  // namespace rtrace::tracer
