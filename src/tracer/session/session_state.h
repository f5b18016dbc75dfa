// The state the parts of a trace session share (session_*.cpp, control_thread.cpp,
// ring_producer.cpp). In static storage: constructed before any code of ours runs, never
// destroyed (other libraries' destructors may still call free after ours ran).
#pragma once

#include <sys/types.h>
#include <sys/un.h>

#include <atomic>
#include <cstdint>

#include "tracer/core/options.h"
#include "tracer/output/session_packets.h"

namespace rtrace::tracer {

// Pending: a followed child records from its first call, but connects (and so leaves a trace)
// only when it has something to record; a child that only execs leaves no empty trace.
enum class State : int { Idle, Pending, Tracing, Finished };

struct SessionState {
  TracerOptions options;
  char socket_path[sizeof(sockaddr_un::sun_path)] = {};
  std::atomic<State> state{State::Idle};
  pid_t pid = 0;
  std::uintptr_t heap_bottom = 0;
  // Drain lock held to read or write: records below it belong to an earlier session.
  std::uint64_t floor = 0;
};

extern SessionState g_session;

// ---- draining (session_drain.cpp) --------------------------------------------------------------

// Stops recording after the recorder went away.
void connection_lost();
// Writes what is pending, stopping the session if the recorder went away.
void flush_output();
// Drain lock held: merges the records below `bound` into the trace.
void drain_locked(std::uint64_t bound);
// Drains now unless another thread is at it; for the program's own threads (a full ring,
// unbuffered mode, a new thread). False when another thread held the drain lock.
bool drain_if_free();
// The control thread's periodic drain.
void drain_pass();

// ---- start and stop (session_lifecycle.cpp) ---------------------------------------------------

// Connects, writes the header and starts recording (Idle or Pending only). Later: the header
// stays buffered (in a signal handler: writing may have to compress, and zstd may not be loaded).
enum class HeaderWrite { Now, Later };
void start_session(HeaderWrite header = HeaderWrite::Now);
// At each record: starts the session of a followed child (its first record), and the control
// thread of a session started without one.
void start_if_pending();
// Stops recording, waits up to `patience_ms` for calls in progress, writes everything out, ends
// the trace and closes; the state is `next` afterwards.
void stop_session(const SessionEnd& ending, long patience_ms, State next);
// Drain lock held, a write having failed for lack of space (output_out_of_space) with the output
// still open: stops recording and ends the trace at once, with reason "no space" and nothing more
// (the calls not yet merged are dropped); the program runs on untraced.
void end_for_lack_of_space();

}  // namespace rtrace::tracer
