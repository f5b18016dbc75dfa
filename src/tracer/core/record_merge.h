// Draining the per-thread rings into the output in ticket order (see trace_session.h for why that
// order keeps every address's history true), and the drain lock that serialises drainers.
#pragma once

#include <cstdint>

namespace rtrace::tracer {

bool drain_try_lock();
// Waits for the lock; gives up when its holder has taken no records for `patience_ms` (-1: never)
// or when this very thread holds it (a crash inside a drain must not touch the half-done state).
bool drain_lock(long patience_ms);
void drain_unlock();

// Drain lock held: writes every record below `bound` out in ticket order, then gives the space
// back to the rings. Records below `floor` (an earlier session's) and, when `emit` is false,
// all records are consumed without being written. False when the connection broke.
bool merge_records(std::uint64_t bound, std::uint64_t floor, bool emit);

// Waiting for room in a full ring: the number of merges so far, and a wait for the next one.
int merges_done();
void wait_for_merge(int seen, long timeout_ms);

}  // namespace rtrace::tracer
