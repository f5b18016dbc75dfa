// What the memory module's C functions and C++ operators share: the real allocator, the module's
// start, and the SDK's record helpers bound to the memory resource.
#pragma once

#include <malloc.h>
#include <stdlib.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>

#include "tracer/api/module_sdk.h"
#include "tracer/modules/memory/byte_sampler.h"
#include "tracer/modules/memory/sampled_blocks.h"

namespace rtrace::tracer {

// The allocator the wrappers call, found once (memory_module_ready) and never looked up again:
// a lookup takes the loader lock and allocates, which a wrapper entered from a signal handler
// must not do.
//
// Each function once: the C functions typed by <stdlib.h>'s declarations, libstdc++'s operators
// by their mangled names (null when the program does not load it). free last: its presence says
// the table is complete.
#define RTRACE_MEMORY_REAL_FUNCTIONS(FUNCTION, SYMBOL)                                        \
  FUNCTION(malloc)                                                                            \
  FUNCTION(calloc)                                                                            \
  FUNCTION(realloc)                                                                           \
  FUNCTION(reallocarray)                                                                      \
  FUNCTION(posix_memalign)                                                                    \
  FUNCTION(aligned_alloc)                                                                     \
  FUNCTION(memalign)                                                                          \
  FUNCTION(valloc)                                                                            \
  FUNCTION(pvalloc)                                                                           \
  SYMBOL(new_, "_Znwm", void*(std::size_t))                                                   \
  SYMBOL(new_array, "_Znam", void*(std::size_t))                                              \
  SYMBOL(new_nothrow, "_ZnwmRKSt9nothrow_t", void*(std::size_t, const std::nothrow_t&))       \
  SYMBOL(new_array_nothrow, "_ZnamRKSt9nothrow_t", void*(std::size_t, const std::nothrow_t&)) \
  SYMBOL(new_aligned, "_ZnwmSt11align_val_t", void*(std::size_t, std::align_val_t))           \
  SYMBOL(new_array_aligned, "_ZnamSt11align_val_t", void*(std::size_t, std::align_val_t))     \
  SYMBOL(new_aligned_nothrow, "_ZnwmSt11align_val_tRKSt9nothrow_t",                           \
         void*(std::size_t, std::align_val_t, const std::nothrow_t&))                         \
  SYMBOL(new_array_aligned_nothrow, "_ZnamSt11align_val_tRKSt9nothrow_t",                     \
         void*(std::size_t, std::align_val_t, const std::nothrow_t&))                         \
  SYMBOL(delete_, "_ZdlPv", void(void*))                                                      \
  SYMBOL(delete_array, "_ZdaPv", void(void*))                                                 \
  SYMBOL(delete_sized, "_ZdlPvm", void(void*, std::size_t))                                   \
  SYMBOL(delete_array_sized, "_ZdaPvm", void(void*, std::size_t))                             \
  SYMBOL(delete_nothrow, "_ZdlPvRKSt9nothrow_t", void(void*, const std::nothrow_t&))          \
  SYMBOL(delete_array_nothrow, "_ZdaPvRKSt9nothrow_t", void(void*, const std::nothrow_t&))    \
  SYMBOL(delete_aligned, "_ZdlPvSt11align_val_t", void(void*, std::align_val_t))              \
  SYMBOL(delete_array_aligned, "_ZdaPvSt11align_val_t", void(void*, std::align_val_t))        \
  SYMBOL(delete_sized_aligned, "_ZdlPvmSt11align_val_t",                                      \
         void(void*, std::size_t, std::align_val_t))                                          \
  SYMBOL(delete_array_sized_aligned, "_ZdaPvmSt11align_val_t",                                \
         void(void*, std::size_t, std::align_val_t))                                          \
  SYMBOL(delete_aligned_nothrow, "_ZdlPvSt11align_val_tRKSt9nothrow_t",                       \
         void(void*, std::align_val_t, const std::nothrow_t&))                                \
  SYMBOL(delete_array_aligned_nothrow, "_ZdaPvSt11align_val_tRKSt9nothrow_t",                 \
         void(void*, std::align_val_t, const std::nothrow_t&))                                \
  FUNCTION(free)
RTRACE_REAL_FUNCTIONS(RealAllocator, RTRACE_MEMORY_REAL_FUNCTIONS);

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

// Records an allocation (after the real call returned it), or, in a sampled trace, only the
// allocations the sampler picks, whose addresses it remembers for their release.
inline void record_memory_allocation(const char* name, std::size_t size, const void* pointer,
                                     const void* return_address, const RtraceArg* args = nullptr,
                                     std::uint32_t arg_count = 0) {
  const auto address = reinterpret_cast<std::uintptr_t>(pointer);
  if (const std::uint64_t interval = sample_interval(); interval != 0) {
    if (!sample_allocation(interval, size) || !remember_sampled(address)) {
      return;
    }
  }
  record_allocation(g_memory_resource, name, size, address, return_address, args, arg_count);
}

// An allocation by `allocate` (which returns the pointer, null on failure), recorded under
// `name`. The real function runs under the module's guard: what it allocates inside is not
// recorded again.
template <typename Allocate>
void* traced_memory_allocation(const char* name, std::size_t size, const void* return_address,
                               Allocate&& allocate) {
  if (!memory_tracing_now()) {
    return allocate();
  }
  MemoryGuard guard;
  void* pointer = allocate();
  if (pointer != nullptr) {
    record_memory_allocation(name, size, pointer, return_address);
  }
  return pointer;
}

// The release of `pointer` (see ReleaseRecorder). In a sampled trace, only the release of a
// block whose allocation was recorded; cancel() puts the block back among the sampled ones (the
// release did not happen: a failed realloc).
class MemoryRelease {
 public:
  MemoryRelease(const char* name, const void* pointer, const void* return_address)
      : address_(reinterpret_cast<std::uintptr_t>(pointer)) {
    sampled_ = sample_interval() != 0;
    recording_ = !sampled_ || forget_sampled(address_);
    if (recording_) {
      recorder_.hold(g_memory_resource, name, address_, return_address);
    }
  }
  MemoryRelease(const MemoryRelease&) = delete;
  MemoryRelease& operator=(const MemoryRelease&) = delete;
  ~MemoryRelease() = default;

  void commit() { recorder_.commit(); }
  void cancel() {
    recorder_.cancel();
    if (recording_ && sampled_) {
      remember_sampled(address_);
    }
  }

 private:
  std::uintptr_t address_;
  bool sampled_ = false;
  bool recording_ = false;
  ReleaseRecorder recorder_;  // holds nothing when the release is not recorded
};

// What a resizing call did to the old block when it returned null: kept it (realloc), or
// released it all the same (mimalloc's reallocf).
enum class OnFailure { KeepsOld, FreesOld };

// A resizing call (`reallocate` returns the new block or null): the release of `old`, then the
// allocation of the new block, both under `name` (realloc, reallocarray, the other allocators'
// own resizing calls).
template <typename Reallocate>
void* traced_reallocation(const char* name, void* old, std::size_t size, const void* return_address,
                          OnFailure on_failure, Reallocate&& reallocate) {
  if (!memory_tracing_now()) {
    return reallocate();
  }
  MemoryGuard guard;
  if (old == nullptr) {
    void* pointer = reallocate();
    if (pointer != nullptr) {
      record_memory_allocation(name, size, pointer, return_address);
    }
    return pointer;
  }
  MemoryRelease release(name, old, return_address);
  void* pointer = reallocate();
  if (pointer != nullptr || size == 0 || on_failure == OnFailure::FreesOld) {
    release.commit();
  } else {
    release.cancel();
  }
  if (pointer != nullptr) {
    record_memory_allocation(name, size, pointer, return_address);
  }
  return pointer;
}

// Writes `value` in decimal into `out` (24 bytes are enough).
void format_decimal(char* out, std::uint64_t value);

}  // namespace rtrace::tracer
