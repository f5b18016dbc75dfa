// What the memory module's C functions and C++ operators share: the real allocator and the
// helpers that record allocations and releases.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>

#include "formats/sprtrace_binary/protocol.h"
#include "tracer/tracer_api.h"

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

extern std::atomic<bool> g_memory_ready;
// The slow path of memory_module_ready.
bool memory_module_start();
// Registers the module with the session once (memory_module_ready does it; the constructor
// again, in case the session was being set up then).
void memory_module_register();

// True when the wrappers can call g_real. The first call of the process sets the module up:
// finds the real functions, sets up the session (rtrace_bootstrap) and registers the module, so
// that even what other libraries' constructors allocate before ours ran is recorded. False only
// while the real functions are being found on this thread (dlsym allocates): the caller then
// serves the bootstrap heap.
inline bool memory_module_ready() {
  return __builtin_expect(g_memory_ready.load(std::memory_order_acquire), 1) ||
         memory_module_start();
}

void record_allocation(const char* name, std::size_t size, const void* pointer,
                       const void* return_address, const RtraceArg* args = nullptr,
                       std::uint32_t arg_count = 0);

// Writes `value` in decimal into `out` (24 bytes are enough).
void format_decimal(char* out, std::uint64_t value);

// An allocation by `allocate` (which returns the pointer), recorded under `name`. The real
// allocator runs under the re-entrancy guard, so what it allocates inside is not recorded twice.
template <typename Allocate>
void* traced_allocation(const char* name, std::size_t size, const void* return_address,
                        Allocate&& allocate) {
  if (!tracing_now()) {
    return allocate();
  }
  GuardScope guard;
  void* pointer = allocate();
  if (pointer != nullptr) {
    record_allocation(name, size, pointer, return_address);
  }
  return pointer;
}

// A release: prepares its record (with -A, its backtrace) and takes the ordering ticket on
// construction, i.e. BEFORE the real release, so that whoever gets the memory next is ordered
// after it.
class ReleaseRecorder {
 public:
  ReleaseRecorder(const char* name, const void* pointer, const void* return_address);
  ReleaseRecorder(const ReleaseRecorder&) = delete;
  ReleaseRecorder& operator=(const ReleaseRecorder&) = delete;
  ~ReleaseRecorder() {
    if (ticket_ != 0) {
      cancel();
    }
  }

  // The release happened: write the record.
  void commit();
  // The release did not happen (a failed realloc).
  void cancel();

 private:
  std::uint64_t ticket_ = 0;
};

}  // namespace rtrace::tracer
