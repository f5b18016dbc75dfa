// What the memory module's C functions and C++ operators share: the real allocator and the
// helpers that record allocations and releases.
#pragma once

#include <cstddef>
#include <cstdint>

#include "formats/sprtrace_binary/protocol.h"
#include "tracer/tracer_api.h"

namespace rtrace::tracer {

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
};

extern RealAllocator g_real;
extern std::uint32_t g_memory_resource;

// Finds the real functions; false while that is in progress on this thread (dlsym allocates).
bool resolve_real_allocator();

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
