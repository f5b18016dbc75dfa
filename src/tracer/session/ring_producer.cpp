#include "tracer/session/ring_producer.h"

#include "tracer/core/record_merge.h"
#include "tracer/core/thread_rings.h"
#include "tracer/session/control_thread.h"
#include "tracer/session/session_state.h"

namespace rtrace::tracer {

// Wake the control thread and sleep until a drain made room; drain here when the control thread
// does not get to it (it may not be scheduled on a busy machine).
char* reserve_after_drain(EventRing& ring, std::size_t max_payload) {
  for (int attempt = 0;; ++attempt) {
    const int merges = merges_done();
    if (char* space = ring.try_reserve(max_payload)) {
      return space;
    }
    if (max_payload > ring.capacity() / 2 || g_session.state.load() != State::Tracing) {
      return nullptr;
    }
    wake_control_thread();
    if (attempt > 0 && drain_if_free()) {
      continue;
    }
    wait_for_merge(merges, 2);
  }
}

void after_publish_slow(EventRing& ring) {
  if (!g_session.options.buffered) {
    drain_if_free();
    return;
  }
  // Wake the drainer early, once per filling, so that it writes while we go on.
  if (ring.filling()) {
    if (!ring.wake_sent) {
      ring.wake_sent = true;
      wake_control_thread();
    }
  } else {
    ring.wake_sent = false;
  }
}

}  // namespace rtrace::tracer
