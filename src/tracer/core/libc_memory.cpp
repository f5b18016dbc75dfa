#include "tracer/core/libc_memory.h"

#include <cstring>

#include "tracer/core/loaded_symbol.h"

namespace rtrace::tracer {

constinit LibcMemory g_libc_memory{&std::memcpy, &std::memset};

void find_libc_memory() {
  // Not dlopen("libc.so.6") + dlsym: that allocates (loaded_symbol.h). Looked up in the library's
  // own table: its own definitions, IFUNCs resolved to the implementations chosen for this CPU.
  void* copy = find_symbol_in("libc.so.6", "memcpy");
  void* fill = find_symbol_in("libc.so.6", "memset");
  if (copy != nullptr && fill != nullptr) {
    g_libc_memory.copy = reinterpret_cast<void* (*)(void*, const void*, std::size_t)>(copy);
    g_libc_memory.fill = reinterpret_cast<void* (*)(void*, int, std::size_t)>(fill);
  }
  // Otherwise the public functions stay: slower with an interposer, as correct.
}

}  // namespace rtrace::tracer
