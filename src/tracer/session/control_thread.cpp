#include "tracer/session/control_thread.h"

#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

#include "tracer/api/tracer_api.h"
#include "tracer/core/clock.h"
#include "tracer/core/thread_rings.h"
#include "tracer/output/session_packets.h"
#include "tracer/output/trace_compressor.h"
#include "tracer/session/late_attach.h"
#include "tracer/session/session_state.h"

namespace rtrace::tracer {
namespace {

std::atomic<int> g_wake{0};
std::atomic<int> g_toggles{0};
std::atomic<bool> g_running{false};
std::atomic<bool> g_wanted{false};
std::atomic<bool> g_allowed{false};

void futex_wait(std::atomic<int>& word, int expected, long timeout_ms) {
  timespec timeout{timeout_ms / 1000, (timeout_ms % 1000) * 1000000};
  ::syscall(SYS_futex, reinterpret_cast<int*>(&word), FUTEX_WAIT_PRIVATE, expected,
            timeout_ms < 0 ? nullptr : &timeout, nullptr, 0);
}

// The thread's name says whether tracing is on ("rtrace:on") or off ("rtrace:off"), so that
// `rtrace record -t` can see from /proc/<pid>/task/*/comm that a toggle took effect (or did
// not: the program replaced our handler). A thread names itself without locks or allocation.
// `shown` is what the name says now (-1: nothing yet).
void publish_tracing_state(int& shown) {
  const State state = g_session.state.load();
  const int on = state == State::Tracing || state == State::Pending ? 1 : 0;
  if (on != shown) {
    ::prctl(PR_SET_NAME, on != 0 ? "rtrace:on" : "rtrace:off", 0, 0, 0);
    shown = on;
  }
}

void carry_out_toggles() {
  for (int toggles = g_toggles.exchange(0); toggles > 0; --toggles) {
    if (g_session.state.load() == State::Tracing) {
      stop_session({.reason = sprtrace::kEndToggleOff}, 1000, State::Idle);
    } else {
      start_session();
    }
  }
}

void* control_thread_main(void*) {
  rtrace_guard = 1;  // nothing this thread does is the program's doing
  if (g_session.options.compact && g_session.options.compress_level > 0) {
    // Normally done by librtrace-main.so's constructor already. Never where the session starts:
    // that may be inside an interposed call, where the loader must not be entered.
    compressor_load();
  }
  std::uint64_t last_sequence = 0;
  bool busy = false;
  int shown_state = -1;
  for (;;) {
    publish_tracing_state(shown_state);
    const bool tracing = g_session.state.load() == State::Tracing;
    // While calls come in: tick every millisecond (timestamps) and drain often; otherwise
    // sleep longer and let the callers read the clock themselves.
    futex_wait(g_wake, 0, !tracing ? 1000 : busy ? 1 : 10);
    g_wake.store(0, std::memory_order_relaxed);
    carry_out_toggles();
    publish_tracing_state(shown_state);
    if (g_session.state.load() == State::Finished || control_thread_should_leave()) {
      break;
    }
    const std::uint64_t sequence = next_ticket();
    busy = g_session.state.load() == State::Tracing && g_session.options.timestamps &&
           sequence != last_sequence;
    last_sequence = sequence;
    recalibrate_clock();
    publish_tick(busy);
    drain_pass();
  }
  publish_tick(false);
  g_running.store(false);
  return nullptr;
}

}  // namespace

void start_control_thread() {
  sigset_t all;
  sigset_t previous;
  ::sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &previous);
  pthread_attr_t attributes;
  ::pthread_attr_init(&attributes);
  ::pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  ::pthread_attr_setstacksize(&attributes, std::size_t{256} * 1024);
  pthread_t thread;
  g_running.store(true);
  if (::pthread_create(&thread, &attributes, control_thread_main, nullptr) != 0) {
    g_running.store(false);
  }
  ::pthread_attr_destroy(&attributes);
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

bool control_thread_running() {
  return g_running.load();
}

void want_control_thread() {
  g_wanted.store(true, std::memory_order_release);
}

void allow_control_thread() {
  g_allowed.store(true, std::memory_order_release);
}

void start_control_thread_if_wanted() {
  if (g_wanted.load(std::memory_order_relaxed) && g_allowed.load(std::memory_order_acquire) &&
      g_wanted.exchange(false) && !g_running.load()) {
    start_control_thread();
  }
}

void wake_control_thread() {
  g_wake.store(1, std::memory_order_release);
  ::syscall(SYS_futex, reinterpret_cast<int*>(&g_wake), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

void request_toggle() {
  g_toggles.fetch_add(1);
  wake_control_thread();
}

void forget_control_thread_after_fork() {
  g_running.store(false);
  g_wanted.store(false);
  g_toggles.store(0);
  g_wake.store(0);
}

}  // namespace rtrace::tracer
