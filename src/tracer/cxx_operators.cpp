// librtrace-memory.so: every form of C++ operator new and delete, each recorded under its own
// name so that a mismatch (new[] released by free or delete) shows in the trace. The real
// operators (libstdc++'s, which call malloc) run under the re-entrancy guard, so their inner
// malloc/free are not recorded a second time.
#include <dlfcn.h>

#include <cstddef>
#include <new>

#include "tracer/bootstrap_heap.h"
#include "tracer/memory_tracing.h"

namespace {

using rtrace::tracer::GuardScope;
using rtrace::tracer::traced_allocation;
using rtrace::tracer::tracing_now;

template <typename Function>
Function real_operator(const char* symbol) {
  return reinterpret_cast<Function>(::dlsym(RTLD_NEXT, symbol));
}

template <typename Release>
void traced_delete(const char* name, void* pointer, const void* return_address, Release&& release) {
  if (rtrace::tracer::bootstrap_owns(pointer)) {
    return;
  }
  if (!tracing_now()) {
    release();
    return;
  }
  GuardScope guard;
  rtrace::tracer::ReleaseRecorder recorder(name, pointer, return_address);
  release();
  recorder.commit();
}

using New = void* (*)(std::size_t);
using NewNothrow = void* (*)(std::size_t, const std::nothrow_t&);
using NewAligned = void* (*)(std::size_t, std::align_val_t);
using NewAlignedNothrow = void* (*)(std::size_t, std::align_val_t, const std::nothrow_t&);
using Delete = void (*)(void*);
using DeleteSized = void (*)(void*, std::size_t);
using DeleteNothrow = void (*)(void*, const std::nothrow_t&);
using DeleteAligned = void (*)(void*, std::align_val_t);
using DeleteSizedAligned = void (*)(void*, std::size_t, std::align_val_t);
using DeleteAlignedNothrow = void (*)(void*, std::align_val_t, const std::nothrow_t&);

}  // namespace

#define RTRACE_RA __builtin_return_address(0)

RTRACE_EXPORT void* operator new(std::size_t size) {
  static const auto real = real_operator<New>("_Znwm");
  return traced_allocation("operator new(unsigned long)", size, RTRACE_RA,
                           [&] { return real(size); });
}

RTRACE_EXPORT void* operator new[](std::size_t size) {
  static const auto real = real_operator<New>("_Znam");
  return traced_allocation("operator new[](unsigned long)", size, RTRACE_RA,
                           [&] { return real(size); });
}

RTRACE_EXPORT void* operator new(std::size_t size, const std::nothrow_t& tag) noexcept {
  static const auto real = real_operator<NewNothrow>("_ZnwmRKSt9nothrow_t");
  return traced_allocation("operator new(unsigned long, std::nothrow_t const&)", size, RTRACE_RA,
                           [&] { return real(size, tag); });
}

RTRACE_EXPORT void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept {
  static const auto real = real_operator<NewNothrow>("_ZnamRKSt9nothrow_t");
  return traced_allocation("operator new[](unsigned long, std::nothrow_t const&)", size, RTRACE_RA,
                           [&] { return real(size, tag); });
}

RTRACE_EXPORT void* operator new(std::size_t size, std::align_val_t alignment) {
  static const auto real = real_operator<NewAligned>("_ZnwmSt11align_val_t");
  return traced_allocation("operator new(unsigned long, std::align_val_t)", size, RTRACE_RA,
                           [&] { return real(size, alignment); });
}

RTRACE_EXPORT void* operator new[](std::size_t size, std::align_val_t alignment) {
  static const auto real = real_operator<NewAligned>("_ZnamSt11align_val_t");
  return traced_allocation("operator new[](unsigned long, std::align_val_t)", size, RTRACE_RA,
                           [&] { return real(size, alignment); });
}

RTRACE_EXPORT void* operator new(std::size_t size, std::align_val_t alignment,
                                 const std::nothrow_t& tag) noexcept {
  static const auto real = real_operator<NewAlignedNothrow>("_ZnwmSt11align_val_tRKSt9nothrow_t");
  return traced_allocation("operator new(unsigned long, std::align_val_t, std::nothrow_t const&)",
                           size, RTRACE_RA, [&] { return real(size, alignment, tag); });
}

RTRACE_EXPORT void* operator new[](std::size_t size, std::align_val_t alignment,
                                   const std::nothrow_t& tag) noexcept {
  static const auto real = real_operator<NewAlignedNothrow>("_ZnamSt11align_val_tRKSt9nothrow_t");
  return traced_allocation("operator new[](unsigned long, std::align_val_t, std::nothrow_t const&)",
                           size, RTRACE_RA, [&] { return real(size, alignment, tag); });
}

RTRACE_EXPORT void operator delete(void* pointer) noexcept {
  static const auto real = real_operator<Delete>("_ZdlPv");
  traced_delete("operator delete(void*)", pointer, RTRACE_RA, [&] { real(pointer); });
}

RTRACE_EXPORT void operator delete[](void* pointer) noexcept {
  static const auto real = real_operator<Delete>("_ZdaPv");
  traced_delete("operator delete[](void*)", pointer, RTRACE_RA, [&] { real(pointer); });
}

RTRACE_EXPORT void operator delete(void* pointer, std::size_t size) noexcept {
  static const auto real = real_operator<DeleteSized>("_ZdlPvm");
  traced_delete("operator delete(void*, unsigned long)", pointer, RTRACE_RA,
                [&] { real(pointer, size); });
}

RTRACE_EXPORT void operator delete[](void* pointer, std::size_t size) noexcept {
  static const auto real = real_operator<DeleteSized>("_ZdaPvm");
  traced_delete("operator delete[](void*, unsigned long)", pointer, RTRACE_RA,
                [&] { real(pointer, size); });
}

RTRACE_EXPORT void operator delete(void* pointer, const std::nothrow_t& tag) noexcept {
  static const auto real = real_operator<DeleteNothrow>("_ZdlPvRKSt9nothrow_t");
  traced_delete("operator delete(void*, std::nothrow_t const&)", pointer, RTRACE_RA,
                [&] { real(pointer, tag); });
}

RTRACE_EXPORT void operator delete[](void* pointer, const std::nothrow_t& tag) noexcept {
  static const auto real = real_operator<DeleteNothrow>("_ZdaPvRKSt9nothrow_t");
  traced_delete("operator delete[](void*, std::nothrow_t const&)", pointer, RTRACE_RA,
                [&] { real(pointer, tag); });
}

RTRACE_EXPORT void operator delete(void* pointer, std::align_val_t alignment) noexcept {
  static const auto real = real_operator<DeleteAligned>("_ZdlPvSt11align_val_t");
  traced_delete("operator delete(void*, std::align_val_t)", pointer, RTRACE_RA,
                [&] { real(pointer, alignment); });
}

RTRACE_EXPORT void operator delete[](void* pointer, std::align_val_t alignment) noexcept {
  static const auto real = real_operator<DeleteAligned>("_ZdaPvSt11align_val_t");
  traced_delete("operator delete[](void*, std::align_val_t)", pointer, RTRACE_RA,
                [&] { real(pointer, alignment); });
}

RTRACE_EXPORT void operator delete(void* pointer, std::size_t size,
                                   std::align_val_t alignment) noexcept {
  static const auto real = real_operator<DeleteSizedAligned>("_ZdlPvmSt11align_val_t");
  traced_delete("operator delete(void*, unsigned long, std::align_val_t)", pointer, RTRACE_RA,
                [&] { real(pointer, size, alignment); });
}

RTRACE_EXPORT void operator delete[](void* pointer, std::size_t size,
                                     std::align_val_t alignment) noexcept {
  static const auto real = real_operator<DeleteSizedAligned>("_ZdaPvmSt11align_val_t");
  traced_delete("operator delete[](void*, unsigned long, std::align_val_t)", pointer, RTRACE_RA,
                [&] { real(pointer, size, alignment); });
}

RTRACE_EXPORT void operator delete(void* pointer, std::align_val_t alignment,
                                   const std::nothrow_t& tag) noexcept {
  static const auto real =
      real_operator<DeleteAlignedNothrow>("_ZdlPvSt11align_val_tRKSt9nothrow_t");
  traced_delete("operator delete(void*, std::align_val_t, std::nothrow_t const&)", pointer,
                RTRACE_RA, [&] { real(pointer, alignment, tag); });
}

RTRACE_EXPORT void operator delete[](void* pointer, std::align_val_t alignment,
                                     const std::nothrow_t& tag) noexcept {
  static const auto real =
      real_operator<DeleteAlignedNothrow>("_ZdaPvSt11align_val_tRKSt9nothrow_t");
  traced_delete("operator delete[](void*, std::align_val_t, std::nothrow_t const&)", pointer,
                RTRACE_RA, [&] { real(pointer, alignment, tag); });
}
