// The trace session of one process: registries, per-thread event rings, the ordering of events
// across threads, and the connection the trace is written to. One job per file (src/tracer/):
//  * set-up and registries: session/session_bootstrap.cpp (session/trace_registry.h,
//    session/module_order.h);
//  * start and stop, the header and the end of a trace: session/session_lifecycle.cpp;
//  * the control thread (drains, clock ticks, toggles): session/control_thread.h;
//  * recording (the functions below a module calls): session/trace_session.cpp,
//    session/ring_producer.h, and session/session_producer.h (what a hot entry point inlines: the
//    transient call's reserve and publish); the entry points themselves:
//    modules/main/main_module.cpp;
//  * draining the rings into the output: session/session_drain.cpp (core/record_merge.h,
//    output/trace_output.h);
//  * fork: session/session_fork.h; the other process hooks (exec, _exit, dlopen...):
//    session/process_hooks.h;
//  * backtraces: unwind/unwinder.h (unwind/backtrace_capture.h, unwind/stack_walker.h);
//  * encoding, in rtrace_tracer_core with unit tests (output/): call_packets.h (header only),
//    transient_release.h, transient_record.h, path_record.h, release_record.h,
//    allocation_record.h, session_packets.h;
//    ordering, also there (core/): event_ring.h, thread_rings.h, record_merge.h.
//  session/session_state.h holds what these share.
//
// Ordering scheme (no global lock on the hot path):
//  * Every event carries a ticket from one global atomic counter. A release (free, the first half
//    of realloc) takes its ticket BEFORE calling the real function; an allocation takes it AFTER
//    the real function returned. So when thread A frees an address and thread B gets it back
//    from malloc, A's ticket is smaller than B's.
//  * A thread encodes its packets into its own ring (event_ring.h), single producer, BEFORE it
//    takes the ticket: waiting for room in a full ring never happens while holding one.
//  * Before taking a ticket a thread publishes a lower bound of it in its ring's `inflight`;
//    it clears it after publishing the record. The drainer reads the counter, then every
//    `inflight`: nothing below the smallest of these can still appear, so it merges every ring's
//    records below that bound in ticket order. The merged stream is therefore sorted by ticket.
//  * Draining happens off the hot path in a control thread (also the one that starts and stops
//    the session on the toggle signal), or synchronously at exit, _exit, exec, fork and crash
//    signals, or by a producer whose ring is full. One drain lock (never taken on the hot path,
//    never held while unwinding) serialises drainers.
#pragma once

#include <cstdint>

#include "tracer/api/tracer_api.h"
#include "tracer/core/options.h"

namespace rtrace::tracer {

// Reads the options and environment, finds the real functions, registers the main module and,
// with start=1, starts tracing once every preloaded module is ready. Runs once, at the first
// interposed call of any module (which may come from another library's constructor, before
// ours) or at the latest from librtrace-main.so's constructor. NotTraced: a child, without
// follow-forks.
enum class Bootstrap { Traced, NotTraced, UnderWay };
Bootstrap session_bootstrap();
// Allows the control thread (drains, clock ticks, toggles) from now on and starts it if tracing
// started already; from the constructor, as threads are better not started from inside another
// library's constructor. With tracing off at the start, it starts with tracing, later.
void session_start_control_thread();
const TracerOptions& session_options();

std::uint32_t session_register_module(const char* name, std::uint16_t major, std::uint16_t minor);
std::uint32_t session_register_resource(const char* type, const char* description,
                                        std::uint32_t flags);
void session_module_ready();
// Returns the context bit (1, 2, 4, ...) or 0 when all 32 are taken.
std::uint32_t session_create_context(const char* name);
bool session_context_known(std::uint32_t id);
// This thread's mask of entered contexts, stamped on each of its calls.
std::uint32_t& context_mask();

// Producer side (see rtrace_prepare in tracer_api.h): encode, take a ticket, publish or cancel.
bool session_prepare(const RtraceCall& call, const std::uintptr_t* frames,
                     std::uint32_t frame_count);
// A fixed record's room in this thread's ring (session_reserve_path and the others below; the
// transient one's in session_producer.h): the ring (no second look-up when publishing) and the
// record (null: not recorded; two words: returned in registers).
class EventRing;
struct PathArgument;
struct TransientSpace {
  EventRing* ring;
  char* record;
};
// An open's record with its path (path_record.h), as the transient one: reserve, unwind into
// path_record_frames, publish.
TransientSpace session_reserve_path(const RtraceCall& call, std::size_t path_length,
                                    std::uint32_t& depth);
void session_publish_path(const TransientSpace& space, const RtraceCall& call,
                          const PathArgument& argument, std::uint32_t frame_count);
// An allocation without arguments (allocation_record.h), as the transient one: reserve, unwind
// into allocation_record_frames, publish.
TransientSpace session_reserve_allocation(const RtraceCall& call, std::uint32_t& depth);
void session_publish_allocation(const TransientSpace& space, const RtraceCall& call,
                                std::uint32_t frame_count);
std::uint64_t session_ticket();
void session_publish(std::uint64_t ticket);
void session_cancel(std::uint64_t ticket);
// A release's record put in place before the real call, its ticket still held (see rtrace_hold):
// returns a handle (0: nothing held); settle confirms it or drops it, and gives the ticket back.
std::uint64_t session_hold(std::uint64_t ticket);
// A release without arguments (release_record.h), as the transient one: reserve (the frames the
// options want in `depth`), unwind into release_record_frames, then write, take the ticket and
// hold it as session_hold does (the handle to settle).
TransientSpace session_reserve_release(const RtraceCall& call, std::uint32_t& depth);
std::uint64_t session_hold_release(const TransientSpace& space, const RtraceCall& call,
                                   std::uint32_t frame_count);
void session_settle(std::uint64_t handle, bool happened);
// Queues MMAP packets for the current maps after dlopen/dlclose.
void session_commit_maps();

// Async-signal-safe: asks the control thread to start or stop tracing.
void session_request_toggle();

enum class FinishReason { Exit, FastExit, Exec, Crash };
// Stops tracing and writes out everything recorded so far, then the end record (REND: the
// reason, `signal_number` for Crash, the resident set size). Safe from a signal handler when
// `reason` is FastExit or Crash (no heap statistics then).
// `note`: a remark written before the end record (compact traces only).
void session_finish(FinishReason reason, int signal_number = 0, const char* note = nullptr);
// After a failed exec: trace again (a new connection, as a new trace).
void session_resume_after_exec();

// The descriptors the trace holds (its output, and the recorder's connection when that is not the
// output), ascending; returns how many (0 to 2). The process must not close them.
int session_descriptors(int (&fds)[2]);
bool session_owns_descriptor(int fd);
// Moves the trace's descriptor away from `fd` (the program wants that number for itself).
void session_move_connection_from(int fd);

}  // namespace rtrace::tracer
