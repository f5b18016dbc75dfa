// The session's control thread: drains the rings every 10 ms while calls come in (which bounds
// what a SIGKILL can lose), ticks the millisecond clock, and starts or stops tracing when the
// toggle signal asks for it (the signal handler only counts and wakes it). It sleeps on a futex
// word; producers wake it when their ring fills.
#pragma once

namespace rtrace::tracer {

// Starts the thread (detached, every signal blocked).
void start_control_thread();
bool control_thread_running();
// Async-signal-safe: ends the thread's current sleep.
void wake_control_thread();
// Async-signal-safe: one more start/stop for the thread to carry out.
void request_toggle();
// In a forked child: the thread does not exist there; forget its state.
void forget_control_thread_after_fork();

}  // namespace rtrace::tracer
