// librtrace-memory.so: traces the C allocation functions. Reports what the original memory
// module reports (see ../../../shared/spec/NOTES.md): realloc as a free `realloc(0xold)` then an
// allocation `realloc(size) = 0xnew`, calloc(n, m) with size n*m, free(NULL) as free(0x0),
// failed calls not at all. The C++ operators live in cxx_operators.cpp.
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>

#include <cstring>

#include "tracer/bootstrap_heap.h"
#include "tracer/decimal.h"
#include "tracer/memory_tracing.h"

namespace rtrace::tracer {

RealAllocator g_real;
std::uint32_t g_memory_resource = 1;

namespace {

thread_local bool t_resolving __attribute__((tls_model("initial-exec"))) = false;

template <typename Function>
void find(Function& target, const char* name) {
  target = reinterpret_cast<Function>(::dlsym(RTLD_NEXT, name));
}

}  // namespace

bool resolve_real_allocator() {
  if (g_real.free != nullptr) {
    return true;
  }
  if (t_resolving) {
    return false;  // dlsym is allocating: the caller uses the bootstrap heap
  }
  t_resolving = true;
  find(g_real.malloc, "malloc");
  find(g_real.calloc, "calloc");
  find(g_real.realloc, "realloc");
  find(g_real.reallocarray, "reallocarray");
  find(g_real.posix_memalign, "posix_memalign");
  find(g_real.aligned_alloc, "aligned_alloc");
  find(g_real.memalign, "memalign");
  find(g_real.valloc, "valloc");
  find(g_real.pvalloc, "pvalloc");
  find(g_real.free, "free");
  t_resolving = false;
  return g_real.free != nullptr;
}

void record_allocation(const char* name, std::size_t size, const void* pointer,
                       const void* return_address, const RtraceArg* args, std::uint32_t arg_count) {
  const RtraceCall call{g_memory_resource,
                        sprtrace::kCallAlloc,
                        name,
                        size,
                        reinterpret_cast<std::uintptr_t>(pointer),
                        args,
                        arg_count};
  rtrace_record(&call, return_address);
}

ReleaseRecorder::ReleaseRecorder(const char* name, const void* pointer,
                                 const void* return_address) {
  const RtraceCall call{g_memory_resource,
                        sprtrace::kCallFree,
                        name,
                        0,
                        reinterpret_cast<std::uintptr_t>(pointer),
                        nullptr,
                        0};
  if (rtrace_prepare(&call, return_address) != 0) {
    ticket_ = rtrace_ticket();
  }
}

void ReleaseRecorder::commit() {
  rtrace_publish(ticket_);
  ticket_ = 0;
}

void ReleaseRecorder::cancel() {
  rtrace_cancel(ticket_);
  ticket_ = 0;
}

}  // namespace rtrace::tracer

using rtrace::tracer::bootstrap_allocate;
using rtrace::tracer::bootstrap_owns;
using rtrace::tracer::g_real;
using rtrace::tracer::GuardScope;
using rtrace::tracer::record_allocation;
using rtrace::tracer::ReleaseRecorder;
using rtrace::tracer::resolve_real_allocator;
using rtrace::tracer::traced_allocation;
using rtrace::tracer::tracing_now;

namespace {

void* bootstrap_zeroed(std::size_t count, std::size_t size) {
  std::size_t total = 0;
  if (__builtin_mul_overflow(count, size, &total)) {
    return nullptr;
  }
  // The static heap starts zeroed and is never reused.
  return bootstrap_allocate(total, 16);
}

// realloc of a block from the bootstrap heap: move it to the real heap.
void* move_from_bootstrap(void* old, std::size_t size) {
  void* moved = malloc(size);
  if (moved != nullptr) {
    const std::size_t old_size = rtrace::tracer::bootstrap_size(old);
    std::memcpy(moved, old, old_size < size ? old_size : size);
  }
  return moved;
}

void* traced_aligned(const char* name, std::size_t alignment, std::size_t size,
                     const void* return_address, void* (*real)(std::size_t, std::size_t)) {
  if (!tracing_now()) {
    return real(alignment, size);
  }
  GuardScope guard;
  void* pointer = real(alignment, size);
  if (pointer != nullptr) {
    if (rtrace_wants_args() != 0) {
      char value[24];
      rtrace::tracer::format_decimal(value, alignment);
      const RtraceArg args[] = {{"alignment", value}};
      record_allocation(name, size, pointer, return_address, args, 1);
    } else {
      record_allocation(name, size, pointer, return_address);
    }
  }
  return pointer;
}

// realloc and reallocarray: the release of the old block, then the new block.
template <typename Reallocate>
void* traced_reallocation(const char* name, void* old, std::size_t size, const void* return_address,
                          Reallocate&& reallocate) {
  if (!tracing_now()) {
    return reallocate();
  }
  GuardScope guard;
  if (old == nullptr) {
    void* pointer = reallocate();
    if (pointer != nullptr) {
      record_allocation(name, size, pointer, return_address);
    }
    return pointer;
  }
  ReleaseRecorder release(name, old, return_address);
  void* pointer = reallocate();
  if (pointer != nullptr || size == 0) {
    release.commit();
  } else {
    release.cancel();
  }
  if (pointer != nullptr) {
    record_allocation(name, size, pointer, return_address);
  }
  return pointer;
}

}  // namespace

namespace rtrace::tracer {

void format_decimal(char* out, std::uint64_t value) {
  *write_decimal(out, value) = '\0';
}

}  // namespace rtrace::tracer

extern "C" {

RTRACE_EXPORT void* malloc(std::size_t size) {
  if (!resolve_real_allocator() || g_real.malloc == nullptr) {
    return bootstrap_allocate(size, 16);
  }
  return traced_allocation("malloc", size, __builtin_return_address(0),
                           [&] { return g_real.malloc(size); });
}

RTRACE_EXPORT void* calloc(std::size_t count, std::size_t size) {
  if (!resolve_real_allocator() || g_real.calloc == nullptr) {
    return bootstrap_zeroed(count, size);
  }
  return traced_allocation("calloc", count * size, __builtin_return_address(0),
                           [&] { return g_real.calloc(count, size); });
}

RTRACE_EXPORT void* realloc(void* old, std::size_t size) {
  if (bootstrap_owns(old)) {
    return move_from_bootstrap(old, size);
  }
  if (!resolve_real_allocator()) {
    return bootstrap_allocate(size, 16);
  }
  return traced_reallocation("realloc", old, size, __builtin_return_address(0),
                             [&] { return g_real.realloc(old, size); });
}

RTRACE_EXPORT void* reallocarray(void* old, std::size_t count, std::size_t size) {
  std::size_t total = 0;
  if (__builtin_mul_overflow(count, size, &total)) {
    errno = ENOMEM;
    return nullptr;
  }
  if (bootstrap_owns(old)) {
    return move_from_bootstrap(old, total);
  }
  if (!resolve_real_allocator() || g_real.reallocarray == nullptr) {
    return realloc(old, total);
  }
  return traced_reallocation("reallocarray", old, total, __builtin_return_address(0),
                             [&] { return g_real.reallocarray(old, count, size); });
}

RTRACE_EXPORT void free(void* pointer) {
  if (bootstrap_owns(pointer) || !resolve_real_allocator()) {
    return;
  }
  if (!tracing_now()) {
    g_real.free(pointer);
    return;
  }
  GuardScope guard;
  ReleaseRecorder release("free", pointer, __builtin_return_address(0));
  g_real.free(pointer);
  release.commit();
}

RTRACE_EXPORT int posix_memalign(void** result, std::size_t alignment, std::size_t size) {
  if (!resolve_real_allocator() || g_real.posix_memalign == nullptr) {
    *result = bootstrap_allocate(size, alignment);
    return *result != nullptr ? 0 : ENOMEM;
  }
  if (!tracing_now()) {
    return g_real.posix_memalign(result, alignment, size);
  }
  GuardScope guard;
  const int status = g_real.posix_memalign(result, alignment, size);
  if (status == 0) {
    char value[24];
    rtrace::tracer::format_decimal(value, alignment);
    const RtraceArg args[] = {{"alignment", value}};
    record_allocation("posix_memalign", size, *result, __builtin_return_address(0), args,
                      rtrace_wants_args() != 0 ? 1 : 0);
  }
  return status;
}

RTRACE_EXPORT void* aligned_alloc(std::size_t alignment, std::size_t size) {
  if (!resolve_real_allocator() || g_real.aligned_alloc == nullptr) {
    return bootstrap_allocate(size, alignment);
  }
  return traced_aligned("aligned_alloc", alignment, size, __builtin_return_address(0),
                        g_real.aligned_alloc);
}

RTRACE_EXPORT void* memalign(std::size_t alignment, std::size_t size) {
  if (!resolve_real_allocator() || g_real.memalign == nullptr) {
    return bootstrap_allocate(size, alignment);
  }
  return traced_aligned("memalign", alignment, size, __builtin_return_address(0), g_real.memalign);
}

RTRACE_EXPORT void* valloc(std::size_t size) {
  if (!resolve_real_allocator() || g_real.valloc == nullptr) {
    return bootstrap_allocate(size, 4096);
  }
  return traced_allocation("valloc", size, __builtin_return_address(0),
                           [&] { return g_real.valloc(size); });
}

RTRACE_EXPORT void* pvalloc(std::size_t size) {
  if (!resolve_real_allocator() || g_real.pvalloc == nullptr) {
    return bootstrap_allocate(size, 4096);
  }
  return traced_allocation("pvalloc", size, __builtin_return_address(0),
                           [&] { return g_real.pvalloc(size); });
}
}

namespace {

__attribute__((constructor)) void memory_module_init() {
  GuardScope guard;
  resolve_real_allocator();
  rtrace_register_module("memory", 1, 0);
  rtrace::tracer::g_memory_resource =
      rtrace_register_resource("memory", "memory allocation in bytes", 0);
  rtrace_module_ready();
}

}  // namespace
