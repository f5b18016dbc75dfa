// librtrace-memory.so: traces the C allocation functions. Reports what the original memory
// module reports (see ../../../shared/spec/NOTES.md): realloc as a free `realloc(0xold)` then an
// allocation `realloc(size) = 0xnew`, calloc(n, m) with size n*m, free(NULL) as free(0x0),
// failed calls not at all. The C++ operators live in cxx_operators.cpp.
#include <errno.h>
#include <stdlib.h>

#include <cstring>

#include "protocol/tracer_options.h"
#include "tracer/core/decimal.h"
#include "tracer/modules/memory/bootstrap_heap.h"
#include "tracer/modules/memory/memory_tracing.h"

namespace rtrace::tracer {

constinit RealAllocator g_real;
std::uint32_t g_memory_resource = 1;

namespace {

bool resolve_real_functions() {
  g_real.find_all();
  return g_real.free != nullptr;
}

// A sampled trace names its interval in a module record of its own (tracer_options.h).
void register_sampling() {
  const std::uint64_t interval = sample_interval();
  if (interval == 0) {
    return;
  }
  read_sample_seed();
  protect_sampled_blocks_across_fork();
  char name[sizeof tracer_options::kSampledModulePrefix + 24];
  std::memcpy(name, tracer_options::kSampledModulePrefix,
              sizeof tracer_options::kSampledModulePrefix - 1);
  format_decimal(name + sizeof tracer_options::kSampledModulePrefix - 1, interval);
  rtrace_register_module(name, 1, 0);
}

void register_memory_module() {
  rtrace_register_module("memory", 1, 0);
  register_sampling();
  g_memory_resource = rtrace_register_resource("memory", "memory allocation in bytes", 0);
  rtrace_module_ready();
}

}  // namespace

constinit ModuleStart<MemoryModule> g_memory_start{resolve_real_functions, register_memory_module};

}  // namespace rtrace::tracer

using rtrace::tracer::bootstrap_allocate;
using rtrace::tracer::bootstrap_owns;
using rtrace::tracer::g_real;
using rtrace::tracer::memory_module_ready;
using rtrace::tracer::memory_tracing_now;
using rtrace::tracer::MemoryGuard;
using rtrace::tracer::MemoryRelease;
using rtrace::tracer::OnFailure;
using rtrace::tracer::record_memory_allocation;
using rtrace::tracer::traced_memory_allocation;
using rtrace::tracer::traced_reallocation;

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
  if (!memory_tracing_now()) {
    return real(alignment, size);
  }
  MemoryGuard guard;
  void* pointer = real(alignment, size);
  if (pointer != nullptr) {
    if (rtrace_wants_args() != 0) {
      char value[24];
      rtrace::tracer::format_decimal(value, alignment);
      const RtraceArg args[] = {{"alignment", value}};
      record_memory_allocation(name, size, pointer, return_address, args, 1);
    } else {
      record_memory_allocation(name, size, pointer, return_address);
    }
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
  if (!memory_module_ready() || g_real.malloc == nullptr) {
    return bootstrap_allocate(size, 16);
  }
  return traced_memory_allocation("malloc", size, __builtin_return_address(0),
                                  [&] { return g_real.malloc(size); });
}

RTRACE_EXPORT void* calloc(std::size_t count, std::size_t size) {
  if (!memory_module_ready() || g_real.calloc == nullptr) {
    return bootstrap_zeroed(count, size);
  }
  return traced_memory_allocation("calloc", count * size, __builtin_return_address(0),
                                  [&] { return g_real.calloc(count, size); });
}

RTRACE_EXPORT void* realloc(void* old, std::size_t size) {
  if (bootstrap_owns(old)) {
    return move_from_bootstrap(old, size);
  }
  if (!memory_module_ready()) {
    return bootstrap_allocate(size, 16);
  }
  return traced_reallocation("realloc", old, size, __builtin_return_address(0), OnFailure::KeepsOld,
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
  if (!memory_module_ready() || g_real.reallocarray == nullptr) {
    return realloc(old, total);
  }
  return traced_reallocation("reallocarray", old, total, __builtin_return_address(0),
                             OnFailure::KeepsOld,
                             [&] { return g_real.reallocarray(old, count, size); });
}

RTRACE_EXPORT void free(void* pointer) {
  if (bootstrap_owns(pointer) || !memory_module_ready()) {
    return;
  }
  if (!memory_tracing_now()) {
    g_real.free(pointer);
    return;
  }
  MemoryGuard guard;
  MemoryRelease release("free", pointer, __builtin_return_address(0));
  g_real.free(pointer);
  release.commit();
}

RTRACE_EXPORT int posix_memalign(void** result, std::size_t alignment, std::size_t size) {
  if (!memory_module_ready() || g_real.posix_memalign == nullptr) {
    *result = bootstrap_allocate(size, alignment);
    return *result != nullptr ? 0 : ENOMEM;
  }
  if (!memory_tracing_now()) {
    return g_real.posix_memalign(result, alignment, size);
  }
  MemoryGuard guard;
  const int status = g_real.posix_memalign(result, alignment, size);
  if (status == 0) {
    char value[24];
    rtrace::tracer::format_decimal(value, alignment);
    const RtraceArg args[] = {{"alignment", value}};
    record_memory_allocation("posix_memalign", size, *result, __builtin_return_address(0), args,
                             rtrace_wants_args() != 0 ? 1 : 0);
  }
  return status;
}

RTRACE_EXPORT void* aligned_alloc(std::size_t alignment, std::size_t size) {
  if (!memory_module_ready() || g_real.aligned_alloc == nullptr) {
    return bootstrap_allocate(size, alignment);
  }
  return traced_aligned("aligned_alloc", alignment, size, __builtin_return_address(0),
                        g_real.aligned_alloc);
}

RTRACE_EXPORT void* memalign(std::size_t alignment, std::size_t size) {
  if (!memory_module_ready() || g_real.memalign == nullptr) {
    return bootstrap_allocate(size, alignment);
  }
  return traced_aligned("memalign", alignment, size, __builtin_return_address(0), g_real.memalign);
}

RTRACE_EXPORT void* valloc(std::size_t size) {
  if (!memory_module_ready() || g_real.valloc == nullptr) {
    return bootstrap_allocate(size, 4096);
  }
  return traced_memory_allocation("valloc", size, __builtin_return_address(0),
                                  [&] { return g_real.valloc(size); });
}

RTRACE_EXPORT void* pvalloc(std::size_t size) {
  if (!memory_module_ready() || g_real.pvalloc == nullptr) {
    return bootstrap_allocate(size, 4096);
  }
  return traced_memory_allocation("pvalloc", size, __builtin_return_address(0),
                                  [&] { return g_real.pvalloc(size); });
}
}

// The session registers the preloaded modules in LD_PRELOAD order (module_order.h).
extern "C" RTRACE_EXPORT void rtrace_module_register() {
  rtrace::tracer::g_memory_start.register_in_order();
}

namespace {

// Usually a no-op: the first allocation of the process set the module up already.
__attribute__((constructor)) void memory_module_init() {
  rtrace::tracer::g_memory_start.finish_registration();
}

}  // namespace
