// The recording side of the session (trace_session.cpp) that a traced call's entry point inlines:
// the ring a call goes to, its stamps (context, time) and the transient call's reserve and
// publish. Inline, so that rtrace_record_transient (main_module.cpp), which a program's every
// memory transfer enters, makes no call of its own besides the walk's: out of line these were two
// calls and ~25 instructions of a transfer's (bench/callgrind-memtransfer.sh). Hot path: no
// locks, no allocation.
#pragma once

#include <cstdint>

#include "tracer/core/clock.h"
#include "tracer/core/thread_rings.h"
#include "tracer/output/transient_record.h"
#include "tracer/session/ring_producer.h"
#include "tracer/session/session_state.h"
#include "tracer/session/trace_registry.h"
#include "tracer/session/trace_session.h"

namespace rtrace::tracer {

// This thread's mask of entered contexts (context_mask()), stamped on each of its calls.
extern constinit thread_local std::uint32_t t_context_mask
    __attribute__((tls_model("initial-exec")));

inline std::uint32_t timestamp_ms() {
  return g_session.options.timestamps ? monotonic_milliseconds() : 0;
}

// The frames an allocation's record asks for (0: no backtrace).
inline std::uint32_t allocation_depth(const RtraceCall& call) {
  return g_session.options.backtrace_depth(false, call.size);
}

// This thread's ring, once the call may be recorded; null otherwise.
inline EventRing* ring_for(const RtraceCall& call) {
  if (!registry_resource_known(call.resource_type)) {
    return nullptr;  // 0: the module registered more types than the protocol can name
  }
  start_if_pending();
  return my_ring();
}

// A transient call (rtrace_record_transient): one record (transient_record.h) that the drain
// expands into the allocation and its release. Room for it with the frames the options want (set
// in `depth`, 0: none; record null: not recorded); the caller unwinds, and puts the first `kept`
// of the backtrace's `frame_count` frames at transient_frames(record) (the ring's producer_frames
// says how many: shared_frames.h); then session_publish_transient completes and publishes it (the
// release carrying the frames too under free-backtraces); the ticket is taken after the walk, as
// an allocation's.
__attribute__((always_inline)) inline TransientSpace session_reserve_transient(
    const RtraceCall& call, std::uint32_t& depth) {
  depth = allocation_depth(call);
  EventRing* ring = ring_for(call);
  return {ring, ring == nullptr ? nullptr : reserve(*ring, transient_record_bound(depth))};
}

__attribute__((always_inline)) inline void session_publish_transient(const TransientSpace& space,
                                                                     const RtraceCall& call,
                                                                     std::uint32_t frame_count,
                                                                     std::uint32_t kept) {
  const std::uint32_t release_frames = g_session.options.free_backtraces ? frame_count : 0;
  const std::size_t length = write_transient(space.record, call, t_context_mask, timestamp_ms(),
                                             frame_count, kept, release_frames);
  publish(*space.ring, take_ticket(*space.ring), length);
}

}  // namespace rtrace::tracer
