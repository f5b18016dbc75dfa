// librtrace-memory.so: tcmalloc's (gperftools) own entry points (gperftools/tcmalloc.h), each
// recorded under its name: tc_malloc, tc_calloc, tc_memalign, tc_posix_memalign, tc_valloc,
// tc_pvalloc and the C++ forms tc_new, tc_newarray (and their nothrow forms) allocate; tc_realloc
// resizes (a release then an allocation); tc_free, tc_cfree, tc_free_sized and tc_delete,
// tc_deletearray (and their sized and nothrow forms) release. The reports count tc_new's blocks
// with operator new's and tc_newarray's with new[]'s, so that tc_newarray released by tc_delete
// shows as a mismatch.
#include <cstring>
#include <new>

#include "tracer/modules/memory/allocator_entry_point.h"

namespace rtrace::tracer {
namespace {

// Without tcmalloc: the same calls over the C allocator (and C++'s, when the program has it).
void* fallback_malloc(std::size_t size) {
  return g_real.malloc(size);
}
void* fallback_calloc(std::size_t count, std::size_t size) {
  return g_real.calloc(count, size);
}
void* fallback_realloc(void* old, std::size_t size) {
  return g_real.realloc(old, size);
}
void* fallback_memalign(std::size_t alignment, std::size_t size) {
  return fallback_aligned(alignment, size);
}
int fallback_posix_memalign(void** result, std::size_t alignment, std::size_t size) {
  return g_real.posix_memalign(result, alignment, size);
}
void* fallback_valloc(std::size_t size) {
  return g_real.valloc(size);
}
void* fallback_pvalloc(std::size_t size) {
  return g_real.pvalloc(size);
}
void* fallback_new_nothrow(std::size_t size, const std::nothrow_t& /*tag*/) {
  return g_real.malloc(size == 0 ? 1 : size);
}
// The throwing forms fail only by throwing, which a C allocator cannot: when C++'s operator is
// there it is called, otherwise a failure ends the process as an unhandled bad_alloc would.
void* fallback_new(std::size_t size) {
  if (g_real.new_ != nullptr) {
    return g_real.new_(size);
  }
  void* pointer = g_real.malloc(size == 0 ? 1 : size);
  if (pointer == nullptr) {
    __builtin_trap();
  }
  return pointer;
}
void* fallback_newarray(std::size_t size) {
  return g_real.new_array != nullptr ? g_real.new_array(size) : fallback_new(size);
}
void fallback_free(void* pointer) {
  g_real.free(pointer);
}
void fallback_free_sized(void* pointer, std::size_t /*size*/) {
  g_real.free(pointer);
}
void fallback_delete_nothrow(void* pointer, const std::nothrow_t& /*tag*/) {
  g_real.free(pointer);
}

constinit EntryPoint<void*(std::size_t)> g_tc_malloc{"tc_malloc", fallback_malloc};
constinit EntryPoint<void*(std::size_t, std::size_t)> g_tc_calloc{"tc_calloc", fallback_calloc};
constinit EntryPoint<void*(void*, std::size_t)> g_tc_realloc{"tc_realloc", fallback_realloc};
constinit EntryPoint<void*(std::size_t, std::size_t)> g_tc_memalign{"tc_memalign",
                                                                    fallback_memalign};
constinit EntryPoint<int(void**, std::size_t, std::size_t)> g_tc_posix_memalign{
    "tc_posix_memalign", fallback_posix_memalign};
constinit EntryPoint<void*(std::size_t)> g_tc_valloc{"tc_valloc", fallback_valloc};
constinit EntryPoint<void*(std::size_t)> g_tc_pvalloc{"tc_pvalloc", fallback_pvalloc};
constinit EntryPoint<void*(std::size_t)> g_tc_new{"tc_new", fallback_new};
constinit EntryPoint<void*(std::size_t)> g_tc_newarray{"tc_newarray", fallback_newarray};
constinit EntryPoint<void*(std::size_t, const std::nothrow_t&)> g_tc_new_nothrow{
    "tc_new_nothrow", fallback_new_nothrow};
constinit EntryPoint<void*(std::size_t, const std::nothrow_t&)> g_tc_newarray_nothrow{
    "tc_newarray_nothrow", fallback_new_nothrow};
constinit EntryPoint<void(void*)> g_tc_free{"tc_free", fallback_free};
constinit EntryPoint<void(void*)> g_tc_cfree{"tc_cfree", fallback_free};
constinit EntryPoint<void(void*, std::size_t)> g_tc_free_sized{"tc_free_sized",
                                                               fallback_free_sized};
constinit EntryPoint<void(void*)> g_tc_delete{"tc_delete", fallback_free};
constinit EntryPoint<void(void*)> g_tc_deletearray{"tc_deletearray", fallback_free};
constinit EntryPoint<void(void*, std::size_t)> g_tc_delete_sized{"tc_delete_sized",
                                                                 fallback_free_sized};
constinit EntryPoint<void(void*, std::size_t)> g_tc_deletearray_sized{"tc_deletearray_sized",
                                                                      fallback_free_sized};
constinit EntryPoint<void(void*, const std::nothrow_t&)> g_tc_delete_nothrow{
    "tc_delete_nothrow", fallback_delete_nothrow};
constinit EntryPoint<void(void*, const std::nothrow_t&)> g_tc_deletearray_nothrow{
    "tc_deletearray_nothrow", fallback_delete_nothrow};

// Our own (empty) tag object: std::nothrow lives in libstdc++, which the tracer does not link.
constexpr std::nothrow_t kNoThrow{};

// The throwing forms: the nothrow form under the guard, then, only when it failed, the throwing
// form outside it, so that what it throws never unwinds through a frame holding the guard (as
// the memory module's operator new).
void* traced_throwing_new(const char* name, std::size_t size, const void* return_address,
                          EntryPoint<void*(std::size_t, const std::nothrow_t&)>& try_allocate,
                          EntryPoint<void*(std::size_t)>& allocate) {
  if (!memory_module_ready()) {
    return bootstrap_allocate(size, 16);
  }
  if (!memory_tracing_now()) {
    return allocate.get()(size);
  }
  void* pointer = traced_memory_allocation(name, size, return_address,
                                           [&] { return try_allocate.get()(size, kNoThrow); });
  return pointer != nullptr ? pointer : allocate.get()(size);
}

std::size_t product(std::size_t count, std::size_t size) {
  std::size_t total = 0;
  return __builtin_mul_overflow(count, size, &total) ? SIZE_MAX : total;
}

}  // namespace
}  // namespace rtrace::tracer

using namespace rtrace::tracer;  // NOLINT(google-build-using-namespace): the wrappers' one scope

extern "C" {

RTRACE_EXPORT void* tc_malloc(std::size_t size) {
  return entry_point_allocation("tc_malloc", size, __builtin_return_address(0),
                                [&] { return g_tc_malloc.get()(size); });
}

RTRACE_EXPORT void* tc_calloc(std::size_t count, std::size_t size) {
  return entry_point_allocation("tc_calloc", product(count, size), __builtin_return_address(0),
                                [&] { return g_tc_calloc.get()(count, size); });
}

RTRACE_EXPORT void* tc_memalign(std::size_t alignment, std::size_t size) {
  return entry_point_allocation("tc_memalign", size, __builtin_return_address(0),
                                [&] { return g_tc_memalign.get()(alignment, size); });
}

RTRACE_EXPORT int tc_posix_memalign(void** result, std::size_t alignment, std::size_t size) {
  int status = 0;
  void* pointer = entry_point_allocation(
      "tc_posix_memalign", size, __builtin_return_address(0), [&]() -> void* {
        void* block = nullptr;
        status = g_tc_posix_memalign.get()(&block, alignment, size);
        return status == 0 ? block : nullptr;
      });
  if (status == 0 && pointer != nullptr) {
    *result = pointer;
  }
  return pointer == nullptr && status == 0 ? ENOMEM : status;
}

RTRACE_EXPORT void* tc_valloc(std::size_t size) {
  return entry_point_allocation("tc_valloc", size, __builtin_return_address(0),
                                [&] { return g_tc_valloc.get()(size); });
}

RTRACE_EXPORT void* tc_pvalloc(std::size_t size) {
  return entry_point_allocation("tc_pvalloc", size, __builtin_return_address(0),
                                [&] { return g_tc_pvalloc.get()(size); });
}

RTRACE_EXPORT void* tc_new(std::size_t size) {
  return traced_throwing_new("tc_new", size, __builtin_return_address(0), g_tc_new_nothrow,
                             g_tc_new);
}

RTRACE_EXPORT void* tc_newarray(std::size_t size) {
  return traced_throwing_new("tc_newarray", size, __builtin_return_address(0),
                             g_tc_newarray_nothrow, g_tc_newarray);
}

RTRACE_EXPORT void* tc_new_nothrow(std::size_t size, const std::nothrow_t& tag) {
  return entry_point_allocation("tc_new_nothrow", size, __builtin_return_address(0),
                                [&] { return g_tc_new_nothrow.get()(size, tag); });
}

RTRACE_EXPORT void* tc_newarray_nothrow(std::size_t size, const std::nothrow_t& tag) {
  return entry_point_allocation("tc_newarray_nothrow", size, __builtin_return_address(0),
                                [&] { return g_tc_newarray_nothrow.get()(size, tag); });
}

RTRACE_EXPORT void* tc_realloc(void* old, std::size_t size) {
  return entry_point_reallocation("tc_realloc", old, size, __builtin_return_address(0),
                                  OnFailure::KeepsOld,
                                  [&] { return g_tc_realloc.get()(old, size); });
}

RTRACE_EXPORT void tc_free(void* pointer) {
  entry_point_release("tc_free", pointer, __builtin_return_address(0),
                      [&] { g_tc_free.get()(pointer); });
}

RTRACE_EXPORT void tc_cfree(void* pointer) {
  entry_point_release("tc_cfree", pointer, __builtin_return_address(0),
                      [&] { g_tc_cfree.get()(pointer); });
}

RTRACE_EXPORT void tc_free_sized(void* pointer, std::size_t size) {
  entry_point_release("tc_free_sized", pointer, __builtin_return_address(0),
                      [&] { g_tc_free_sized.get()(pointer, size); });
}

RTRACE_EXPORT void tc_delete(void* pointer) {
  entry_point_release("tc_delete", pointer, __builtin_return_address(0),
                      [&] { g_tc_delete.get()(pointer); });
}

RTRACE_EXPORT void tc_deletearray(void* pointer) {
  entry_point_release("tc_deletearray", pointer, __builtin_return_address(0),
                      [&] { g_tc_deletearray.get()(pointer); });
}

RTRACE_EXPORT void tc_delete_sized(void* pointer, std::size_t size) {
  entry_point_release("tc_delete_sized", pointer, __builtin_return_address(0),
                      [&] { g_tc_delete_sized.get()(pointer, size); });
}

RTRACE_EXPORT void tc_deletearray_sized(void* pointer, std::size_t size) {
  entry_point_release("tc_deletearray_sized", pointer, __builtin_return_address(0),
                      [&] { g_tc_deletearray_sized.get()(pointer, size); });
}

RTRACE_EXPORT void tc_delete_nothrow(void* pointer, const std::nothrow_t& tag) {
  entry_point_release("tc_delete_nothrow", pointer, __builtin_return_address(0),
                      [&] { g_tc_delete_nothrow.get()(pointer, tag); });
}

RTRACE_EXPORT void tc_deletearray_nothrow(void* pointer, const std::nothrow_t& tag) {
  entry_point_release("tc_deletearray_nothrow", pointer, __builtin_return_address(0),
                      [&] { g_tc_deletearray_nothrow.get()(pointer, tag); });
}
}
