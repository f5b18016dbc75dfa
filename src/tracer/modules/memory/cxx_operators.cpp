// librtrace-memory.so: every form of C++ operator new and delete, each recorded under its own
// name so that a mismatch (new[] released by free or delete) shows in the trace. The real
// operators (libstdc++'s, which call malloc) run under the re-entrancy guard, so their inner
// malloc/free are not recorded a second time.
#include <cstddef>
#include <new>

#include "tracer/modules/memory/bootstrap_heap.h"
#include "tracer/modules/memory/memory_tracing.h"

namespace {

using rtrace::tracer::memory_tracing_now;
using rtrace::tracer::MemoryGuard;
using rtrace::tracer::traced_memory_allocation;

using rtrace::tracer::g_real;

// Our own (empty) tag object: std::nothrow lives in libstdc++, which the tracer does not link.
constexpr std::nothrow_t kNoThrow{};

// The real operators are found with the C allocator (memory_module_ready); an operator called
// before that (by another library's constructor) sets the module up.
bool real_operators_ready() {
  return rtrace::tracer::memory_module_ready() && g_real.new_ != nullptr;
}

// An allocation by a real operator (the bootstrap heap while the operators are being found).
template <typename Allocate>
void* traced_new(std::size_t alignment, const char* name, std::size_t size,
                 const void* return_address, Allocate&& allocate) {
  if (!real_operators_ready()) {
    return rtrace::tracer::bootstrap_allocate(size, alignment);
  }
  return traced_memory_allocation(name, size, return_address, allocate);
}

// The forms that throw: the real nothrow form under the guard, then, only when that failed, the
// throwing form outside it, to throw what it throws (std::bad_alloc, or whatever the program's
// new handler throws). The tracer is built without exceptions, so that it brings no C++ runtime
// into C programs (libstdc++'s start-up allocations would show in their traces): nothing may be
// unwound through a frame that holds the guard.
template <typename TryAllocate, typename Allocate>
void* traced_throwing_new(std::size_t alignment, const char* name, std::size_t size,
                          const void* return_address, TryAllocate&& try_allocate,
                          Allocate&& allocate) {
  if (!real_operators_ready()) {
    return rtrace::tracer::bootstrap_allocate(size, alignment);
  }
  if (!memory_tracing_now()) {
    return allocate();  // also libstdc++'s nothrow forms, which call the throwing ones
  }
  void* pointer = traced_memory_allocation(name, size, return_address, try_allocate);
  return pointer != nullptr ? pointer : allocate();
}

template <typename Release>
void traced_delete(const char* name, void* pointer, const void* return_address, Release&& release) {
  if (rtrace::tracer::bootstrap_owns(pointer) || !real_operators_ready()) {
    return;
  }
  if (!memory_tracing_now()) {
    release();
    return;
  }
  MemoryGuard guard;
  rtrace::tracer::MemoryRelease recorder(name, pointer, return_address);
  release();
  recorder.commit();
}

}  // namespace

#define RTRACE_RA __builtin_return_address(0)

RTRACE_EXPORT void* operator new(std::size_t size) {
  return traced_throwing_new(
      16, "operator new(unsigned long)", size, RTRACE_RA,
      [&] { return g_real.new_nothrow(size, kNoThrow); }, [&] { return g_real.new_(size); });
}

RTRACE_EXPORT void* operator new[](std::size_t size) {
  return traced_throwing_new(
      16, "operator new[](unsigned long)", size, RTRACE_RA,
      [&] { return g_real.new_array_nothrow(size, kNoThrow); },
      [&] { return g_real.new_array(size); });
}

RTRACE_EXPORT void* operator new(std::size_t size, const std::nothrow_t& tag) noexcept {
  return traced_new(16, "operator new(unsigned long, std::nothrow_t const&)", size, RTRACE_RA,
                    [&] { return g_real.new_nothrow(size, tag); });
}

RTRACE_EXPORT void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept {
  return traced_new(16, "operator new[](unsigned long, std::nothrow_t const&)", size, RTRACE_RA,
                    [&] { return g_real.new_array_nothrow(size, tag); });
}

RTRACE_EXPORT void* operator new(std::size_t size, std::align_val_t alignment) {
  return traced_throwing_new(
      static_cast<std::size_t>(alignment), "operator new(unsigned long, std::align_val_t)", size,
      RTRACE_RA, [&] { return g_real.new_aligned_nothrow(size, alignment, kNoThrow); },
      [&] { return g_real.new_aligned(size, alignment); });
}

RTRACE_EXPORT void* operator new[](std::size_t size, std::align_val_t alignment) {
  return traced_throwing_new(
      static_cast<std::size_t>(alignment), "operator new[](unsigned long, std::align_val_t)", size,
      RTRACE_RA, [&] { return g_real.new_array_aligned_nothrow(size, alignment, kNoThrow); },
      [&] { return g_real.new_array_aligned(size, alignment); });
}

RTRACE_EXPORT void* operator new(std::size_t size, std::align_val_t alignment,
                                 const std::nothrow_t& tag) noexcept {
  return traced_new(static_cast<std::size_t>(alignment),
                    "operator new(unsigned long, std::align_val_t, std::nothrow_t const&)", size,
                    RTRACE_RA, [&] { return g_real.new_aligned_nothrow(size, alignment, tag); });
}

RTRACE_EXPORT void* operator new[](std::size_t size, std::align_val_t alignment,
                                   const std::nothrow_t& tag) noexcept {
  return traced_new(static_cast<std::size_t>(alignment),
                    "operator new[](unsigned long, std::align_val_t, std::nothrow_t const&)", size,
                    RTRACE_RA,
                    [&] { return g_real.new_array_aligned_nothrow(size, alignment, tag); });
}

RTRACE_EXPORT void operator delete(void* pointer) noexcept {
  traced_delete("operator delete(void*)", pointer, RTRACE_RA, [&] { g_real.delete_(pointer); });
}

RTRACE_EXPORT void operator delete[](void* pointer) noexcept {
  traced_delete("operator delete[](void*)", pointer, RTRACE_RA,
                [&] { g_real.delete_array(pointer); });
}

RTRACE_EXPORT void operator delete(void* pointer, std::size_t size) noexcept {
  traced_delete("operator delete(void*, unsigned long)", pointer, RTRACE_RA,
                [&] { g_real.delete_sized(pointer, size); });
}

RTRACE_EXPORT void operator delete[](void* pointer, std::size_t size) noexcept {
  traced_delete("operator delete[](void*, unsigned long)", pointer, RTRACE_RA,
                [&] { g_real.delete_array_sized(pointer, size); });
}

RTRACE_EXPORT void operator delete(void* pointer, const std::nothrow_t& tag) noexcept {
  traced_delete("operator delete(void*, std::nothrow_t const&)", pointer, RTRACE_RA,
                [&] { g_real.delete_nothrow(pointer, tag); });
}

RTRACE_EXPORT void operator delete[](void* pointer, const std::nothrow_t& tag) noexcept {
  traced_delete("operator delete[](void*, std::nothrow_t const&)", pointer, RTRACE_RA,
                [&] { g_real.delete_array_nothrow(pointer, tag); });
}

RTRACE_EXPORT void operator delete(void* pointer, std::align_val_t alignment) noexcept {
  traced_delete("operator delete(void*, std::align_val_t)", pointer, RTRACE_RA,
                [&] { g_real.delete_aligned(pointer, alignment); });
}

RTRACE_EXPORT void operator delete[](void* pointer, std::align_val_t alignment) noexcept {
  traced_delete("operator delete[](void*, std::align_val_t)", pointer, RTRACE_RA,
                [&] { g_real.delete_array_aligned(pointer, alignment); });
}

RTRACE_EXPORT void operator delete(void* pointer, std::size_t size,
                                   std::align_val_t alignment) noexcept {
  traced_delete("operator delete(void*, unsigned long, std::align_val_t)", pointer, RTRACE_RA,
                [&] { g_real.delete_sized_aligned(pointer, size, alignment); });
}

RTRACE_EXPORT void operator delete[](void* pointer, std::size_t size,
                                     std::align_val_t alignment) noexcept {
  traced_delete("operator delete[](void*, unsigned long, std::align_val_t)", pointer, RTRACE_RA,
                [&] { g_real.delete_array_sized_aligned(pointer, size, alignment); });
}

RTRACE_EXPORT void operator delete(void* pointer, std::align_val_t alignment,
                                   const std::nothrow_t& tag) noexcept {
  traced_delete("operator delete(void*, std::align_val_t, std::nothrow_t const&)", pointer,
                RTRACE_RA, [&] { g_real.delete_aligned_nothrow(pointer, alignment, tag); });
}

RTRACE_EXPORT void operator delete[](void* pointer, std::align_val_t alignment,
                                     const std::nothrow_t& tag) noexcept {
  traced_delete("operator delete[](void*, std::align_val_t, std::nothrow_t const&)", pointer,
                RTRACE_RA, [&] { g_real.delete_array_aligned_nothrow(pointer, alignment, tag); });
}
