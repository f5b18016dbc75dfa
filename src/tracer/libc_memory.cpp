#include "tracer/libc_memory.h"

#include <dlfcn.h>

#include <cstring>

namespace rtrace::tracer {

constinit LibcMemory g_libc_memory{&std::memcpy, &std::memset};

void find_libc_memory() {
  void* libc = ::dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY);
  if (libc == nullptr) {
    return;  // the public functions stay: slower with an interposer, as correct
  }
  // dlsym on the library's handle searches it first: its own definitions, IFUNCs resolved to the
  // implementations chosen for this CPU.
  void* copy = ::dlsym(libc, "memcpy");
  void* fill = ::dlsym(libc, "memset");
  if (copy != nullptr && fill != nullptr) {
    g_libc_memory.copy = reinterpret_cast<void* (*)(void*, const void*, std::size_t)>(copy);
    g_libc_memory.fill = reinterpret_cast<void* (*)(void*, int, std::size_t)>(fill);
  }
  ::dlclose(libc);
}

}  // namespace rtrace::tracer
