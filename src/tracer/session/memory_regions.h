// The process's memory as the leak check (leak_check.h) needs it: the mappings it may read, and
// the roots every loaded module gives (its writable PT_LOAD segments: .data, .bss), the tracer's
// own modules left out. Raw system calls and memory from mmap.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rtrace::tracer {

struct AddressRange {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
};

// The readable mappings of /proc/self/maps, ascending ([vvar] and [vsyscall] left out: reading
// them may fault). Returns how many fit `out`; 0 when the file cannot be read.
std::size_t read_readable_mappings(AddressRange* out, std::size_t capacity);

// The mapping of `ranges` (ascending, `count`) that holds `address`; null when none.
const AddressRange* mapping_of(const AddressRange* ranges, std::size_t count,
                               std::uintptr_t address);

// Where the tracer's own static TLS lies in every thread: its offset from the thread pointer
// and its size (the same in every thread for a module loaded at start-up).
struct TlsOffset {
  std::intptr_t offset = 0;
  std::size_t size = 0;
};

struct ModuleRoots {
  std::size_t segment_count = 0;
  TlsOffset tracer_tls[8];
  std::size_t tracer_tls_count = 0;
};

// The writable PT_LOAD segments of every loaded module but the tracer's own (librtrace-*.so,
// rtrace-audit-linker.so: what they hold are the tracer's tables, never the program's
// pointers) into `out`, and where the tracer's modules' static TLS is. Takes the dynamic
// linker's lock: call it before stopping the other threads.
ModuleRoots module_roots(AddressRange* out, std::size_t capacity);

// The size of the static TLS area the dynamic linker set up for every thread (0: not known).
std::size_t static_tls_size();

}  // namespace rtrace::tracer
