// The session's control thread: drains the rings every 10 ms while calls come in (which bounds
// what a SIGKILL can lose), ticks the millisecond clock, and starts or stops tracing when the
// toggle signal asks for it (the signal handler only counts and wakes it). It sleeps on a futex
// word; producers wake it when their ring fills.
#pragma once

namespace rtrace::tracer {

// Starts the thread (detached, every signal blocked).
void start_control_thread();
bool control_thread_running();
// The thread starts with tracing, not before (a program traced from a toggle keeps one thread
// and its heap untouched until then). Async-signal-safe: asks for the thread; it is started by
// the next start_control_thread_if_wanted once librtrace-main's constructor allowed threads.
void want_control_thread();
void allow_control_thread();
// Cheap while nothing is wanted: one relaxed load (it runs at every recorded call).
void start_control_thread_if_wanted();
// Async-signal-safe: ends the thread's current sleep.
void wake_control_thread();
// Async-signal-safe: one more start/stop for the thread to carry out.
void request_toggle();
// In a forked child: the thread does not exist there; forget its state.
void forget_control_thread_after_fork();

}  // namespace rtrace::tracer
