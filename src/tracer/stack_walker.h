// The tracer's fast unwinder: walks the stack with the call frame information rules of each
// return address (cfi_rules.h), remembered in a table shared by all threads, so that a stack
// whose frames have been seen before costs a table lookup and two loads per frame. It gives up
// (and the caller asks libunwind, unwinder.h) on any frame whose rule it does not know for sure:
// a frame without call frame information, a signal frame, a realigned stack, an expression.
// No frame pointers are assumed: code built without them (Debian's libc) unwinds the same.
#pragma once

#include <cstdint>

namespace rtrace::tracer {

inline constexpr int kWalkUnknownFrame = -1;

// Stores up to `capacity` return addresses, the first being walk_stack's own return address,
// and returns how many; or kWalkUnknownFrame when a frame's rule is not known.
// Takes no lock and never allocates.
int walk_stack(std::uintptr_t* frames, std::uint32_t capacity);

// Forgets every remembered rule: code came or went (dlopen, dlclose).
void forget_frame_rules();

}  // namespace rtrace::tracer
