// The tracer's fast unwinder: walks the stack with the call frame information rules of each
// return address (cfi_rules.h), remembered in a table shared by all threads, so that a stack
// whose frames have been seen before costs a table lookup and two loads per frame. It gives up
// (and the caller asks libunwind, unwinder.h) on any frame whose rule it does not know for sure:
// a frame without call frame information, a signal frame, a realigned stack, an expression.
// No frame pointers are assumed: code built without them (Debian's libc) unwinds the same.
#pragma once

#include <cstdint>

#include "tracer/walk_memo.h"

namespace rtrace::tracer {

inline constexpr int kWalkUnknownFrame = -1;
inline constexpr int kWalkRemembered = -2;

// Stores up to `capacity` return addresses, the first being walk_stack's own return address,
// and returns how many; or kWalkUnknownFrame when a frame's rule is not known.
// Takes no lock and never allocates.
// With a `memo` (this thread's), a walk from the same place over the same stack words as one the
// memo holds under the same `tag` (any word the caller makes part of the key) is not done again:
// kWalkRemembered, and memo->remembered() gives what the caller kept of it. Otherwise the walk
// writes its reads into the memo, and the caller may keep() its result for the next time.
int walk_stack(std::uintptr_t* frames, std::uint32_t capacity, WalkMemo* memo = nullptr,
               std::uintptr_t tag = 0);

// Forgets every remembered rule: code came or went (dlopen, dlclose).
void forget_frame_rules();

}  // namespace rtrace::tracer
