// Plain byte loops that stand in for the memory transfer functions while the memtransfer module
// is finding the real ones (dlsym itself copies memory), or while another thread is at it. They
// run a handful of times per process, so they are simple rather than fast.
//
// They access memory through volatile pointers: otherwise the compiler may turn these very loops
// back into calls to memcpy/memset, i.e. into our own wrappers (whatever the compiler or flags).
#pragma once

#include <cstddef>

namespace rtrace::tracer {

void* fallback_copy(void* destination, const void* source, std::size_t size);
void* fallback_move(void* destination, const void* source, std::size_t size);
void* fallback_fill(void* destination, int value, std::size_t size);
std::size_t fallback_length(const char* text);
std::size_t fallback_bounded_length(const char* text, std::size_t limit);
std::size_t fallback_wide_length(const wchar_t* text);

}  // namespace rtrace::tracer
