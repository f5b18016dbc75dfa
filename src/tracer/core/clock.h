// The CALL timestamp: CLOCK_MONOTONIC in milliseconds, cheaply. clock_gettime costs about 60 ns
// in a virtual machine and even the TSC about 20 ns, a large part of the whole per-call budget.
// While calls keep coming the control thread publishes the time every millisecond (heaptrack
// does the same with 10 ms); otherwise, when the kernel itself uses the TSC as its clock source,
// we read the TSC and scale it with a calibration the control thread refreshes against
// clock_gettime; else clock_gettime.
#pragma once

#include <cstdint>

namespace rtrace::tracer {

// Decides whether the TSC can be used; call once at start-up.
void init_clock();
// Re-anchors the TSC scale to clock_gettime (from the control thread, every few milliseconds).
void recalibrate_clock();
// The control thread's millisecond tick while calls are being recorded: callers then read one
// shared word instead of the clock. `busy` false marks the tick stale (nothing happened for a
// while, the control thread sleeps longer): callers read the clock themselves again.
void publish_tick(bool busy);
std::uint32_t monotonic_milliseconds();
// CLOCK_MONOTONIC itself, for deadlines: counting sleeps would stretch a patience on a loaded
// machine, where each sleep overruns.
std::uint64_t monotonic_nanoseconds();

}  // namespace rtrace::tracer
