// What the memory module's wrappers of the other allocators' own entry points share (mimalloc's
// mi_*, jemalloc's *allocx, tcmalloc's tc_*: *_entry_points.cpp). A program linked with (or
// preloaded with) one of those libraries calls its malloc family through our malloc, whose real
// function is then the library's; its own entry points are wrapped here and recorded under their
// own names, in the memory resource, so that a block allocated by one function and released by
// another (mi_malloc then free) keeps one history, and the reports can tell which allocator a
// block came from and which releases do not match.
//
// Each entry point is looked up once, at its first call (the library is loaded by then: the call
// came through it). A program without the library may still call it: some test the symbol's
// presence (a weak reference) to find out whether the allocator is linked, and we export it. The
// wrapper then calls a fallback of the same meaning over the C allocator, so that the program
// gets what it asked for and never a null function. An allocator library loaded with dlopen
// after its entry point was first called is not seen: the fallback stays.
#pragma once

#include <atomic>
#include <cstddef>
#include <utility>

#include "tracer/api/real_symbol.h"
#include "tracer/modules/memory/bootstrap_heap.h"
#include "tracer/modules/memory/memory_tracing.h"

namespace rtrace::tracer {

// One entry point of another allocator: `name` found after our library, else `fallback`.
template <typename Signature>
class EntryPoint {
 public:
  constexpr EntryPoint(const char* name, Signature* fallback) : name_(name), fallback_(fallback) {}
  EntryPoint(const EntryPoint&) = delete;
  EntryPoint& operator=(const EntryPoint&) = delete;

  const char* name() const { return name_; }

  // The function to call. The first call looks it up (under the tracer guard: dlsym allocates);
  // two threads doing so at once find the same function.
  Signature* get() {
    Signature* function = function_.load(std::memory_order_acquire);
    if (__builtin_expect(function != nullptr, 1)) {
      return function;
    }
    GuardScope guard;
    find_real(function, name_);
    if (function == nullptr) {
      function = fallback_;
    }
    function_.store(function, std::memory_order_release);
    return function;
  }

 private:
  const char* name_;
  Signature* fallback_;
  std::atomic<Signature*> function_{nullptr};
};

// An allocation of `size` bytes by `allocate`, recorded under `name` (the bootstrap heap while
// the memory module is finding the C allocator, as malloc does).
template <typename Allocate>
void* entry_point_allocation(const char* name, std::size_t size, const void* return_address,
                             Allocate&& allocate) {
  if (!memory_module_ready()) {
    return bootstrap_allocate(size, 16);
  }
  return traced_memory_allocation(name, size, return_address, allocate);
}

// The release of `pointer` by `release`, recorded under `name` before the real call (free's
// order: whoever gets the address next comes after it).
template <typename Release>
void entry_point_release(const char* name, void* pointer, const void* return_address,
                         Release&& release) {
  if (bootstrap_owns(pointer) || !memory_module_ready()) {
    return;
  }
  if (!memory_tracing_now()) {
    release();
    return;
  }
  MemoryGuard guard;
  MemoryRelease record(name, pointer, return_address);
  release();
  record.commit();
}

// A resizing entry point (`reallocate` returns the new block or null), recorded as the memory
// module records realloc (traced_reallocation), once the bootstrap heap has had its say.
template <typename Reallocate>
void* entry_point_reallocation(const char* name, void* old, std::size_t size,
                               const void* return_address, OnFailure on_failure,
                               Reallocate&& reallocate) {
  if (bootstrap_owns(old)) {
    return nullptr;  // only the C allocator's own realloc moves blocks off the bootstrap heap
  }
  if (!memory_module_ready()) {
    return bootstrap_allocate(size, 16);
  }
  return traced_reallocation(name, old, size, return_address, on_failure,
                             std::forward<Reallocate>(reallocate));
}

// The fallbacks' aligned allocation over the C allocator: null when `alignment` is not a power
// of two (as the allocators' own aligned calls).
void* fallback_aligned(std::size_t alignment, std::size_t size);

}  // namespace rtrace::tracer
