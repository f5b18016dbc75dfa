// librtrace-memory.so: mimalloc's own entry points (mimalloc.h), each recorded under its name:
// mi_malloc, mi_zalloc, mi_calloc, mi_mallocn, mi_malloc_aligned, mi_zalloc_aligned,
// mi_calloc_aligned, mi_strdup, mi_strndup allocate; mi_realloc, mi_reallocn, mi_reallocf,
// mi_realloc_aligned resize (a release then an allocation); mi_free, mi_free_size,
// mi_free_aligned, mi_free_size_aligned release. Calls mimalloc makes to its own exported
// functions (mi_strdup's mi_malloc) run under the memory module's guard: recorded once.
// The heap functions (mi_heap_*) are not wrapped: a heap's blocks are released all at once by
// mi_heap_destroy, which the trace would not see.
#include <cstring>

#include "tracer/modules/memory/allocator_entry_point.h"

namespace rtrace::tracer {
namespace {

// Without mimalloc: the same calls over the C allocator.
void* fallback_zalloc(std::size_t size) {
  return g_real.calloc(1, size);
}
void* fallback_calloc(std::size_t count, std::size_t size) {
  return g_real.calloc(count, size);
}
void* fallback_reallocn(void* old, std::size_t count, std::size_t size) {
  std::size_t total = 0;
  return __builtin_mul_overflow(count, size, &total) ? nullptr : g_real.realloc(old, total);
}
void* fallback_reallocf(void* old, std::size_t size) {
  void* pointer = g_real.realloc(old, size);
  if (pointer == nullptr && size != 0) {
    g_real.free(old);
  }
  return pointer;
}
void* fallback_malloc_aligned(std::size_t size, std::size_t alignment) {
  return fallback_aligned(alignment, size);
}
void* fallback_zalloc_aligned(std::size_t size, std::size_t alignment) {
  void* pointer = fallback_aligned(alignment, size);
  if (pointer != nullptr) {
    std::memset(pointer, 0, size);
  }
  return pointer;
}
void* fallback_calloc_aligned(std::size_t count, std::size_t size, std::size_t alignment) {
  std::size_t total = 0;
  return __builtin_mul_overflow(count, size, &total) ? nullptr
                                                     : fallback_zalloc_aligned(total, alignment);
}
void* fallback_realloc_aligned(void* old, std::size_t size, std::size_t alignment) {
  void* pointer = fallback_aligned(alignment, size);
  if (pointer != nullptr && old != nullptr) {
    const std::size_t old_size = malloc_usable_size(old);
    std::memcpy(pointer, old, old_size < size ? old_size : size);
    g_real.free(old);
  }
  return pointer;
}
char* fallback_strndup(const char* text, std::size_t most) {
  const std::size_t length = strnlen(text, most);
  auto* copy = static_cast<char*>(g_real.malloc(length + 1));
  if (copy != nullptr) {
    std::memcpy(copy, text, length);
    copy[length] = '\0';
  }
  return copy;
}
char* fallback_strdup(const char* text) {
  return fallback_strndup(text, SIZE_MAX);
}
void* fallback_malloc(std::size_t size) {
  return g_real.malloc(size);
}
void* fallback_realloc(void* old, std::size_t size) {
  return g_real.realloc(old, size);
}
void fallback_free(void* pointer) {
  g_real.free(pointer);
}
void fallback_free_size(void* pointer, std::size_t /*size*/) {
  g_real.free(pointer);
}
void fallback_free_size_aligned(void* pointer, std::size_t /*size*/, std::size_t /*alignment*/) {
  g_real.free(pointer);
}

constinit EntryPoint<void*(std::size_t)> g_mi_malloc{"mi_malloc", fallback_malloc};
constinit EntryPoint<void*(std::size_t)> g_mi_zalloc{"mi_zalloc", fallback_zalloc};
constinit EntryPoint<void*(std::size_t, std::size_t)> g_mi_calloc{"mi_calloc", fallback_calloc};
constinit EntryPoint<void*(std::size_t, std::size_t)> g_mi_mallocn{"mi_mallocn", fallback_calloc};
constinit EntryPoint<void*(std::size_t, std::size_t)> g_mi_malloc_aligned{"mi_malloc_aligned",
                                                                          fallback_malloc_aligned};
constinit EntryPoint<void*(std::size_t, std::size_t)> g_mi_zalloc_aligned{"mi_zalloc_aligned",
                                                                          fallback_zalloc_aligned};
constinit EntryPoint<void*(std::size_t, std::size_t, std::size_t)> g_mi_calloc_aligned{
    "mi_calloc_aligned", fallback_calloc_aligned};
constinit EntryPoint<char*(const char*)> g_mi_strdup{"mi_strdup", fallback_strdup};
constinit EntryPoint<char*(const char*, std::size_t)> g_mi_strndup{"mi_strndup", fallback_strndup};
constinit EntryPoint<void*(void*, std::size_t)> g_mi_realloc{"mi_realloc", fallback_realloc};
constinit EntryPoint<void*(void*, std::size_t, std::size_t)> g_mi_reallocn{"mi_reallocn",
                                                                           fallback_reallocn};
constinit EntryPoint<void*(void*, std::size_t)> g_mi_reallocf{"mi_reallocf", fallback_reallocf};
constinit EntryPoint<void*(void*, std::size_t, std::size_t)> g_mi_realloc_aligned{
    "mi_realloc_aligned", fallback_realloc_aligned};
constinit EntryPoint<void(void*)> g_mi_free{"mi_free", fallback_free};
constinit EntryPoint<void(void*, std::size_t)> g_mi_free_size{"mi_free_size", fallback_free_size};
constinit EntryPoint<void(void*, std::size_t)> g_mi_free_aligned{"mi_free_aligned",
                                                                 fallback_free_size};
constinit EntryPoint<void(void*, std::size_t, std::size_t)> g_mi_free_size_aligned{
    "mi_free_size_aligned", fallback_free_size_aligned};

std::size_t product(std::size_t count, std::size_t size) {
  std::size_t total = 0;
  return __builtin_mul_overflow(count, size, &total) ? SIZE_MAX : total;
}

}  // namespace
}  // namespace rtrace::tracer

using namespace rtrace::tracer;  // NOLINT(google-build-using-namespace): the wrappers' one scope

extern "C" {

RTRACE_EXPORT void* mi_malloc(std::size_t size) {
  return entry_point_allocation("mi_malloc", size, __builtin_return_address(0),
                                [&] { return g_mi_malloc.get()(size); });
}

RTRACE_EXPORT void* mi_zalloc(std::size_t size) {
  return entry_point_allocation("mi_zalloc", size, __builtin_return_address(0),
                                [&] { return g_mi_zalloc.get()(size); });
}

RTRACE_EXPORT void* mi_calloc(std::size_t count, std::size_t size) {
  return entry_point_allocation("mi_calloc", product(count, size), __builtin_return_address(0),
                                [&] { return g_mi_calloc.get()(count, size); });
}

RTRACE_EXPORT void* mi_mallocn(std::size_t count, std::size_t size) {
  return entry_point_allocation("mi_mallocn", product(count, size), __builtin_return_address(0),
                                [&] { return g_mi_mallocn.get()(count, size); });
}

RTRACE_EXPORT void* mi_malloc_aligned(std::size_t size, std::size_t alignment) {
  return entry_point_allocation("mi_malloc_aligned", size, __builtin_return_address(0),
                                [&] { return g_mi_malloc_aligned.get()(size, alignment); });
}

RTRACE_EXPORT void* mi_zalloc_aligned(std::size_t size, std::size_t alignment) {
  return entry_point_allocation("mi_zalloc_aligned", size, __builtin_return_address(0),
                                [&] { return g_mi_zalloc_aligned.get()(size, alignment); });
}

RTRACE_EXPORT void* mi_calloc_aligned(std::size_t count, std::size_t size, std::size_t alignment) {
  return entry_point_allocation("mi_calloc_aligned", product(count, size),
                                __builtin_return_address(0),
                                [&] { return g_mi_calloc_aligned.get()(count, size, alignment); });
}

RTRACE_EXPORT char* mi_strdup(const char* text) {
  // The size is known once the copy exists: the length is read under the guard, as the copy.
  if (!memory_module_ready() || !memory_tracing_now()) {
    return g_mi_strdup.get()(text);
  }
  MemoryGuard guard;
  char* copy = g_mi_strdup.get()(text);
  if (copy != nullptr) {
    record_memory_allocation("mi_strdup", std::strlen(copy) + 1, copy, __builtin_return_address(0));
  }
  return copy;
}

RTRACE_EXPORT char* mi_strndup(const char* text, std::size_t most) {
  if (!memory_module_ready() || !memory_tracing_now()) {
    return g_mi_strndup.get()(text, most);
  }
  MemoryGuard guard;
  char* copy = g_mi_strndup.get()(text, most);
  if (copy != nullptr) {
    record_memory_allocation("mi_strndup", std::strlen(copy) + 1, copy,
                             __builtin_return_address(0));
  }
  return copy;
}

RTRACE_EXPORT void* mi_realloc(void* old, std::size_t size) {
  return entry_point_reallocation("mi_realloc", old, size, __builtin_return_address(0),
                                  OnFailure::KeepsOld,
                                  [&] { return g_mi_realloc.get()(old, size); });
}

RTRACE_EXPORT void* mi_reallocn(void* old, std::size_t count, std::size_t size) {
  return entry_point_reallocation("mi_reallocn", old, product(count, size),
                                  __builtin_return_address(0), OnFailure::KeepsOld,
                                  [&] { return g_mi_reallocn.get()(old, count, size); });
}

RTRACE_EXPORT void* mi_reallocf(void* old, std::size_t size) {
  return entry_point_reallocation("mi_reallocf", old, size, __builtin_return_address(0),
                                  OnFailure::FreesOld,
                                  [&] { return g_mi_reallocf.get()(old, size); });
}

RTRACE_EXPORT void* mi_realloc_aligned(void* old, std::size_t size, std::size_t alignment) {
  return entry_point_reallocation("mi_realloc_aligned", old, size, __builtin_return_address(0),
                                  OnFailure::KeepsOld,
                                  [&] { return g_mi_realloc_aligned.get()(old, size, alignment); });
}

RTRACE_EXPORT void mi_free(void* pointer) {
  entry_point_release("mi_free", pointer, __builtin_return_address(0),
                      [&] { g_mi_free.get()(pointer); });
}

RTRACE_EXPORT void mi_free_size(void* pointer, std::size_t size) {
  entry_point_release("mi_free_size", pointer, __builtin_return_address(0),
                      [&] { g_mi_free_size.get()(pointer, size); });
}

RTRACE_EXPORT void mi_free_aligned(void* pointer, std::size_t alignment) {
  entry_point_release("mi_free_aligned", pointer, __builtin_return_address(0),
                      [&] { g_mi_free_aligned.get()(pointer, alignment); });
}

RTRACE_EXPORT void mi_free_size_aligned(void* pointer, std::size_t size, std::size_t alignment) {
  entry_point_release("mi_free_size_aligned", pointer, __builtin_return_address(0),
                      [&] { g_mi_free_size_aligned.get()(pointer, size, alignment); });
}
}
