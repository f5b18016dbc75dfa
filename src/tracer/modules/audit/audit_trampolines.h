// The audit library's trampolines (x86-64): a symbol the audit patterns choose is bound, by
// la_symbind64, to a small trampoline of its own instead of the function. The trampoline saves
// the argument registers, reports the call (the function's name, the stack pointer at its entry,
// which points at the caller's return address, and the caller's frame pointer), restores them
// and jumps to the function, with the stack exactly as the caller left it: the function runs as
// if called directly, and returns straight to the caller.
//
// Trampolines live in pages mapped by the library, each written whole (its code depends only on
// the slot) and then made executable and read-only, never both writable and executable; at most
// 8192, never freed (a library unloaded later leaves a few unused ones). Not saved: the upper
// halves of the AVX registers (arguments of 256-bit vector types) and the x87 stack.
#pragma once

#include <cstdint>

namespace rtrace::tracer {

// What a trampoline reports: the chosen function's name, where the call's return address is
// (the stack pointer at the function's entry) and the caller's frame pointer.
using AuditReport = void (*)(const char* name, const void* const* stack_pointer,
                             std::uintptr_t frame_pointer);

// Sets the function every trampoline reports to (once, before any trampoline is made).
void set_audit_report(AuditReport report);

// A trampoline for the function at `target` named `name` (which must outlive it: the symbol
// name of the object that binds it), or 0 when no more can be made (the caller then binds the
// function itself: its calls are not seen).
std::uintptr_t make_trampoline(std::uintptr_t target, const char* name);

}  // namespace rtrace::tracer
