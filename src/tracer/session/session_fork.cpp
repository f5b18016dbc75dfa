// The session across fork (pthread_atfork): the parent's records reach the parent's trace; a
// child starts a trace of its own (follow-forks) or records nothing.
#include "tracer/session/session_fork.h"

#include <pthread.h>
#include <unistd.h>

#include "tracer/api/tracer_api.h"
#include "tracer/core/record_merge.h"
#include "tracer/core/thread_rings.h"
#include "tracer/output/trace_output.h"
#include "tracer/session/control_thread.h"
#include "tracer/session/session_state.h"

namespace rtrace::tracer {
namespace {

bool g_fork_locked = false;

void before_fork() {
  // Everything recorded before the fork reaches the parent's trace, and the child's copy of the
  // drain state is consistent.
  g_fork_locked = drain_lock(1000);
  if (g_fork_locked && g_session.state.load() == State::Tracing) {
    drain_locked(safe_bound(current_ring()));
    flush_output();
  }
}

void after_fork_parent() {
  if (g_fork_locked) {
    drain_unlock();
  }
}

void after_fork_child() {
  // The other threads and the control thread do not exist here; their records stay with the
  // parent, whose trace they belong to.
  reset_rings_after_fork();
  g_session.pid = ::getpid();
  output_forget_after_fork();  // the parent's connection
  drain_unlock();              // taken by before_fork under the parent's thread id
  forget_control_thread_after_fork();
  const bool was_tracing = g_session.state.load() == State::Tracing;
  __atomic_store_n(&rtrace_tracing, 0, __ATOMIC_SEQ_CST);
  if (!g_session.options.follow_forks) {
    g_session.state.store(State::Finished);
    return;
  }
  g_session.state.store(State::Idle);
  // The child's control thread starts with its session, at its first record.
  if (was_tracing) {
    g_session.state.store(State::Pending);
    __atomic_store_n(&rtrace_tracing, 1, __ATOMIC_RELEASE);
  }
}

}  // namespace

void install_fork_handlers() {
  ::pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

}  // namespace rtrace::tracer
