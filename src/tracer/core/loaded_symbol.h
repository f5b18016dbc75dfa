// Looking a symbol up in one loaded object by reading its dynamic symbol table, without the
// dynamic linker's dlopen+dlsym: dlopen of an object loaded at start-up (a preloaded module, the
// C library) allocates its search list on the program's heap, and the tracer leaves the heap
// untouched until tracing starts (a program traced from a toggle has 0 bytes of heap at main:
// RecordTracer.ProgramIsUntouchedUntilTracingStarts). Reads the GNU hash table (what Debian's
// linker writes); only defined, default-version symbols; an IFUNC is resolved as the dynamic
// linker would (x86-64: its resolver, no arguments).
#pragma once

#include <link.h>

namespace rtrace::tracer {

// The address of `name` defined in `object` (from dl_iterate_phdr), or null.
void* find_loaded_symbol(const dl_phdr_info& object, const char* name);

// The same in the first loaded object whose file name ends with "/" + `file` (e.g. "libc.so.6").
void* find_symbol_in(const char* file, const char* name);

}  // namespace rtrace::tracer
