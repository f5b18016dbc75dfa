// What the memory module's C functions and C++ operators share: the real allocator, the module's
// start, and the SDK's record helpers bound to the memory resource.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>

#include "tracer/api/module_sdk.h"

namespace rtrace::tracer {

// The allocator the wrappers call, found once (memory_module_ready) and never looked up again:
// a lookup takes the loader lock and allocates, which a wrapper entered from a signal handler
// must not do.
struct RealAllocator {
  void* (*malloc)(std::size_t) = nullptr;
  void* (*calloc)(std::size_t, std::size_t) = nullptr;
  void* (*realloc)(void*, std::size_t) = nullptr;
  void* (*reallocarray)(void*, std::size_t, std::size_t) = nullptr;
  int (*posix_memalign)(void**, std::size_t, std::size_t) = nullptr;
  void* (*aligned_alloc)(std::size_t, std::size_t) = nullptr;
  void* (*memalign)(std::size_t, std::size_t) = nullptr;
  void* (*valloc)(std::size_t) = nullptr;
  void* (*pvalloc)(std::size_t) = nullptr;
  void (*free)(void*) = nullptr;
  // libstdc++'s operators (null when the program does not load it).
  void* (*new_)(std::size_t) = nullptr;
  void* (*new_array)(std::size_t) = nullptr;
  void* (*new_nothrow)(std::size_t, const std::nothrow_t&) = nullptr;
  void* (*new_array_nothrow)(std::size_t, const std::nothrow_t&) = nullptr;
  void* (*new_aligned)(std::size_t, std::align_val_t) = nullptr;
  void* (*new_array_aligned)(std::size_t, std::align_val_t) = nullptr;
  void* (*new_aligned_nothrow)(std::size_t, std::align_val_t, const std::nothrow_t&) = nullptr;
  void* (*new_array_aligned_nothrow)(std::size_t, std::align_val_t,
                                     const std::nothrow_t&) = nullptr;
  void (*delete_)(void*) = nullptr;
  void (*delete_array)(void*) = nullptr;
  void (*delete_sized)(void*, std::size_t) = nullptr;
  void (*delete_array_sized)(void*, std::size_t) = nullptr;
  void (*delete_nothrow)(void*, const std::nothrow_t&) = nullptr;
  void (*delete_array_nothrow)(void*, const std::nothrow_t&) = nullptr;
  void (*delete_aligned)(void*, std::align_val_t) = nullptr;
  void (*delete_array_aligned)(void*, std::align_val_t) = nullptr;
  void (*delete_sized_aligned)(void*, std::size_t, std::align_val_t) = nullptr;
  void (*delete_array_sized_aligned)(void*, std::size_t, std::align_val_t) = nullptr;
  void (*delete_aligned_nothrow)(void*, std::align_val_t, const std::nothrow_t&) = nullptr;
  void (*delete_array_aligned_nothrow)(void*, std::align_val_t, const std::nothrow_t&) = nullptr;
};

extern RealAllocator g_real;
extern std::uint32_t g_memory_resource;

struct MemoryModule;  // the module's tag for ModuleStart
extern ModuleStart<MemoryModule> g_memory_start;

// True when the wrappers can call g_real (see ModuleStart::ready). False only while the real
// functions are being found on this thread: the caller then serves the bootstrap heap.
inline bool memory_module_ready() {
  return g_memory_start.ready();
}

// The module's own guard: held while a real allocator runs, so that what it allocates inside
// (libstdc++'s operator new calling malloc) is not recorded twice. Other modules' calls made
// inside it are still theirs to record.
using MemoryGuard = OwnGuard<MemoryModule>;
inline bool memory_tracing_now() {
  return tracing_now<MemoryModule>();
}

inline void record_memory_allocation(const char* name, std::size_t size, const void* pointer,
                                     const void* return_address, const RtraceArg* args = nullptr,
                                     std::uint32_t arg_count = 0) {
  record_allocation(g_memory_resource, name, size, reinterpret_cast<std::uintptr_t>(pointer),
                    return_address, args, arg_count);
}

template <typename Allocate>
void* traced_memory_allocation(const char* name, std::size_t size, const void* return_address,
                               Allocate&& allocate) {
  return traced_allocation<MemoryModule>(g_memory_resource, name, size, return_address, allocate);
}

// The release of `pointer` (see ReleaseRecorder).
class MemoryRelease : public ReleaseRecorder {
 public:
  MemoryRelease(const char* name, const void* pointer, const void* return_address)
      : ReleaseRecorder(g_memory_resource, name, reinterpret_cast<std::uintptr_t>(pointer),
                        return_address) {}
};

// Writes `value` in decimal into `out` (24 bytes are enough).
void format_decimal(char* out, std::uint64_t value);

}  // namespace rtrace::tracer
