// Moving the recorded events from the rings into the trace (record_merge.h does the merge; this
// decides when, and what a broken connection means for the session).
#include <signal.h>

#include "tracer/api/tracer_api.h"
#include "tracer/core/record_merge.h"
#include "tracer/core/thread_rings.h"
#include "tracer/output/trace_output.h"
#include "tracer/session/session_state.h"

namespace rtrace::tracer {

constinit SessionState g_session;

void connection_lost() {
  __atomic_store_n(&rtrace_tracing, 0, __ATOMIC_RELAXED);
  g_session.state.store(State::Finished);
}

namespace {

// The ticket counter at the previous drain_pass (the control thread's).
std::uint64_t g_tickets_at_last_pass = 0;

// A write failed: the recorder went away, or the file system is full and the trace ends saying
// so while its output can still take the end.
void check_flushed(bool ok) {
  if (g_session.state.load() != State::Tracing) {
    return;
  }
  if (output_out_of_space() && output_is_open()) {
    end_for_lack_of_space();
  } else if (!ok) {
    connection_lost();
  }
}

}  // namespace

void flush_output() {
  check_flushed(output_flush());
}

void drain_locked(std::uint64_t bound) {
  const bool emit = g_session.state.load() == State::Tracing || output_is_open();
  check_flushed(merge_records(bound, g_session.floor, emit));
}

// Signals stay blocked meanwhile: a handler that ends the process (_exit, a crash) must find the
// drain lock free to write everything out, never a half-done write of its own thread.
bool drain_if_free() {
  sigset_t all;
  sigset_t previous;
  ::sigfillset(&all);
  ::pthread_sigmask(SIG_BLOCK, &all, &previous);
  const bool locked = drain_try_lock();
  if (locked) {
    drain_locked(safe_bound(nullptr));
    flush_output();
    drain_unlock();
  }
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return locked;
}

// When no call took a ticket since the previous pass, the program has gone quiet: what waits for
// a fuller batch goes out now rather than up to 10 ms later (a process killed meanwhile would
// lose it).
void drain_pass() {
  if (!drain_try_lock()) {
    return;
  }
  if (g_session.state.load() == State::Tracing) {
    const std::uint64_t tickets = next_ticket();
    const bool quiet = tickets == g_tickets_at_last_pass;
    g_tickets_at_last_pass = tickets;
    drain_locked(safe_bound(nullptr));
    check_flushed(quiet ? output_flush_now() : output_flush());
  }
  drain_unlock();
}

}  // namespace rtrace::tracer
