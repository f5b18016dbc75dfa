// Recording: the producer side of trace_session.h. A module's call is encoded into its thread's
// ring (call_packets.h), then takes a ticket and is published (ring_producer.h). The rest of
// the session lives in session_bootstrap.cpp (set-up, registries), session_lifecycle.cpp (start
// and stop), session_drain.cpp, session_fork.cpp and control_thread.cpp.
#include "tracer/session/trace_session.h"

#include <cstring>

#include "tracer/core/clock.h"
#include "tracer/core/thread_rings.h"
#include "tracer/output/allocation_record.h"
#include "tracer/output/call_packets.h"
#include "tracer/output/path_record.h"
#include "tracer/output/release_record.h"
#include "tracer/output/transient_record.h"
#include "tracer/session/maps_reader.h"
#include "tracer/session/ring_producer.h"
#include "tracer/session/session_producer.h"
#include "tracer/session/session_state.h"
#include "tracer/session/trace_registry.h"
#include "tracer/unwind/unwinder.h"

namespace rtrace::tracer {

// The memory maps after a dlopen are the largest record, and any thread's ring must take it.
static_assert(kMaxMapsPayload <= kSmallestRingCapacity / 2);

namespace {

// The call encoded by session_prepare and not yet published.
thread_local bool t_prepared __attribute__((tls_model("initial-exec"))) = false;
thread_local std::size_t t_prepared_length __attribute__((tls_model("initial-exec"))) = 0;

}  // namespace

constinit thread_local std::uint32_t t_context_mask __attribute__((tls_model("initial-exec"))) = 0;

std::uint32_t session_create_context(const char* name) {
  const std::uint32_t id = registry_add_context(name);
  start_if_pending();
  if (id == 0 || __atomic_load_n(&rtrace_tracing, __ATOMIC_ACQUIRE) == 0) {
    return id;  // when tracing starts, the header lists it
  }
  constexpr std::size_t kContextPacketBound = 128;
  EventRing* ring = my_ring();
  char* space = ring == nullptr ? nullptr : reserve(*ring, kContextPacketBound);
  if (space != nullptr) {
    PacketEncoder encoder(space, kContextPacketBound);
    encode_context(encoder, id);
    publish(*ring, take_ticket(*ring), encoder.size());
  }
  return id;
}

bool session_context_known(std::uint32_t id) {
  return registry_context_known(id);
}

bool session_prepare(const RtraceCall& call, const std::uintptr_t* frames,
                     std::uint32_t frame_count) {
  EventRing* ring = ring_for(call);
  if (ring == nullptr) {
    return false;
  }
  const CallPackets packets(call, frame_count);
  char* space = reserve(*ring, packets.size());
  if (space == nullptr) {
    return false;
  }
  packets.write(space, t_context_mask, timestamp_ms(), frames);
  t_prepared_length = packets.size();
  t_prepared = true;
  return true;
}

// An allocation without arguments (rtrace_record): one record of fixed size (allocation_record.h)
// that the drain expands into CALL and BTRC; the caller unwinds straight into it, as for a
// transient call.
TransientSpace session_reserve_allocation(const RtraceCall& call, std::uint32_t& depth) {
  depth = allocation_depth(call);
  EventRing* ring = ring_for(call);
  return {ring, ring == nullptr ? nullptr : reserve(*ring, allocation_record_bound(depth))};
}

void session_publish_allocation(const TransientSpace& space, const RtraceCall& call,
                                std::uint32_t frame_count) {
  const std::size_t length =
      write_allocation_record(space.record, call, t_context_mask, timestamp_ms(), frame_count);
  publish(*space.ring, take_ticket(*space.ring), length);
}

// An open (rtrace_record_path): one record (path_record.h) that the drain expands into CALL, ARGS
// and BTRC; the caller unwinds straight into it, as for a transient call.
TransientSpace session_reserve_path(const RtraceCall& call, std::size_t path_length,
                                    std::uint32_t& depth) {
  depth = allocation_depth(call);
  EventRing* ring = ring_for(call);
  return {ring, ring == nullptr ? nullptr : reserve(*ring, path_record_bound(path_length, depth))};
}

void session_publish_path(const TransientSpace& space, const RtraceCall& call,
                          const PathArgument& argument, std::uint32_t frame_count) {
  const std::size_t length =
      write_path_record(space.record, call, argument, t_context_mask, timestamp_ms(), frame_count);
  publish(*space.ring, take_ticket(*space.ring), length);
}

std::uint64_t session_ticket() {
  return t_prepared ? take_ticket(*current_ring()) : 0;
}

void session_publish(std::uint64_t ticket) {
  if (ticket != 0 && t_prepared) {
    t_prepared = false;
    publish(*current_ring(), ticket, t_prepared_length);
  }
}

void session_cancel(std::uint64_t ticket) {
  t_prepared = false;
  if (ticket != 0 && current_ring() != nullptr) {
    release_ticket(*current_ring());
  }
}

namespace {
// Publishes the record of `length` bytes under `ticket` with the ticket still held (nothing
// after it goes out until session_settle); returns the handle that settles it.
std::uint64_t publish_held(EventRing& ring, std::uint64_t ticket, std::size_t length) {
  const std::uint64_t position = ring.head.load(std::memory_order_relaxed);
  ring.publish(ticket, length);
  return position + 1;
}
}  // namespace

std::uint64_t session_hold(std::uint64_t ticket) {
  if (ticket == 0 || !t_prepared) {
    return 0;
  }
  t_prepared = false;
  return publish_held(*current_ring(), ticket, t_prepared_length);
}

// A release without arguments (rtrace_prepare_held): one record of fixed size (release_record.h)
// that the drain expands into CALL and BTRC; the caller unwinds straight into it (free-backtraces
// only). Held as session_hold holds a prepared call's packets.
TransientSpace session_reserve_release(const RtraceCall& call, std::uint32_t& depth) {
  depth = g_session.options.backtrace_depth(true, call.size);
  EventRing* ring = ring_for(call);
  return {ring, ring == nullptr ? nullptr : reserve(*ring, release_record_bound(depth))};
}

std::uint64_t session_hold_release(const TransientSpace& space, const RtraceCall& call,
                                   std::uint32_t frame_count) {
  const std::size_t length =
      write_release_record(space.record, call, t_context_mask, timestamp_ms(), frame_count);
  return publish_held(*space.ring, take_ticket(*space.ring), length);
}

void session_settle(std::uint64_t handle, bool happened) {
  EventRing* ring = current_ring();
  if (handle == 0 || ring == nullptr) {
    return;
  }
  if (!happened) {
    ring->void_record(handle - 1);
  }
  after_publish(*ring);
}

void session_commit_maps() {
  unwinder_modules_changed();
  start_if_pending();
  if (__atomic_load_n(&rtrace_tracing, __ATOMIC_ACQUIRE) == 0) {
    return;
  }
  EventRing* ring = my_ring();
  if (ring == nullptr) {
    return;
  }
  char* space = reserve(*ring, kMaxMapsPayload);
  if (space == nullptr) {
    return;
  }
  PacketEncoder encoder(space, kMaxMapsPayload);
  encode_executable_mappings(encoder);
  // No NLIB: in the original it asked the recorder to rescan /proc/<pid>/maps, which fails for a
  // process that has already exited. We send the maps themselves, so trace files hold exactly
  // what the original's did and never lack a mapping.
  publish(*ring, take_ticket(*ring), encoder.overflowed() ? 0 : encoder.size());
}

std::uint32_t& context_mask() {
  return t_context_mask;
}

}  // namespace rtrace::tracer
