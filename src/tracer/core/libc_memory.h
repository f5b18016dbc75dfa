// The C library's own memcpy and memset, for the tracer's copies of variable size on the path
// of every traced call (a record's name, its frames, a transient call's release half). Another
// preloaded module may interpose the public symbols: the memtransfer module does, to trace the
// program's transfers, and every copy the tracer made while encoding a record would then pass
// through its wrapper first (three to five per record, about 100 instructions per traced
// transfer in all: bench/callgrind-memtransfer.sh). Found once at the session's set-up
// (find_libc_memory); until then, and in a process without the session (unit tests), the
// public functions.
#pragma once

#include <cstddef>

namespace rtrace::tracer {

struct LibcMemory {
  void* (*copy)(void*, const void*, std::size_t);
  void* (*fill)(void*, int, std::size_t);
};

extern LibcMemory g_libc_memory;

// Looks the C library's functions up in the C library itself (its own symbol table, never the
// global scope where an interposer comes first). From the session's set-up, under the guard.
void find_libc_memory();

inline void libc_copy(void* destination, const void* source, std::size_t size) {
  g_libc_memory.copy(destination, source, size);
}

inline void libc_fill(void* destination, int value, std::size_t size) {
  g_libc_memory.fill(destination, value, size);
}

}  // namespace rtrace::tracer
