// Backtraces for the tracer: the tracer's own cached call-frame-information walk
// (stack_walker.h), or libunwind's unw_backtrace for a stack it does not know, trimmed so that
// frame 0 is the function that called the traced function, whatever the tracer's own frames look
// like. RTRACE_UNWINDER=libunwind in the environment makes every backtrace libunwind's.
#pragma once

#include <cstdint>

namespace rtrace::tracer {

// Sets up libunwind's per-thread caches; call once at start-up, before any unwinding.
void init_unwinder();

// Tells libunwind that modules came or went (after dlopen/dlclose).
void unwinder_modules_changed();

// Stores up to `capacity` return addresses, starting at `return_address` (the traced wrapper's
// own return address, i.e. the call site in its caller). Returns the number stored.
std::uint32_t capture_backtrace(std::uintptr_t* frames, std::uint32_t capacity,
                                const void* return_address);
// (backtrace_capture.h has the same, inline, for an entry point that must not add a frame.)

}  // namespace rtrace::tracer
