// librtrace-memory.so: jemalloc's non-standard API (jemalloc(3)), each call recorded under its
// name: mallocx allocates; rallocx resizes (a release then an allocation); xallocx resizes in
// place (when it reached the size asked for: the release of the block then its allocation at the
// same address with the new size); dallocx and sdallocx release. Debian's libjemalloc exports
// them without a prefix; a jemalloc built with a prefix (je_mallocx, bytehound's _rjem_mallocx)
// is left to its malloc family.
#include <cstring>

#include "tracer/modules/memory/allocator_entry_point.h"

namespace rtrace::tracer {
namespace {

// The flags of jemalloc's API that change what a fallback must do: MALLOCX_LG_ALIGN(la) in the
// low six bits (the alignment's base-2 logarithm), MALLOCX_ZERO.
constexpr int kLgAlignMask = 0x3f;
constexpr int kZero = 0x40;

std::size_t alignment_of(int flags) {
  const int lg_align = flags & kLgAlignMask;
  return lg_align == 0 ? 0 : std::size_t{1} << lg_align;
}

// Without jemalloc: the same calls over the C allocator.
void* fallback_mallocx(std::size_t size, int flags) {
  const std::size_t alignment = alignment_of(flags);
  void* pointer = alignment == 0 ? g_real.malloc(size) : fallback_aligned(alignment, size);
  if (pointer != nullptr && (flags & kZero) != 0) {
    std::memset(pointer, 0, size);
  }
  return pointer;
}
void* fallback_rallocx(void* old, std::size_t size, int flags) {
  if (alignment_of(flags) == 0 && (flags & kZero) == 0) {
    return g_real.realloc(old, size);
  }
  void* pointer = fallback_mallocx(size, flags);
  if (pointer != nullptr) {
    const std::size_t old_size = malloc_usable_size(old);
    std::memcpy(pointer, old, old_size < size ? old_size : size);
    g_real.free(old);
  }
  return pointer;
}
std::size_t fallback_xallocx(void* pointer, std::size_t /*size*/, std::size_t /*extra*/,
                             int /*flags*/) {
  return malloc_usable_size(pointer);  // never resized in place: its size as it is
}
void fallback_dallocx(void* pointer, int /*flags*/) {
  g_real.free(pointer);
}
void fallback_sdallocx(void* pointer, std::size_t /*size*/, int /*flags*/) {
  g_real.free(pointer);
}

constinit EntryPoint<void*(std::size_t, int)> g_mallocx{"mallocx", fallback_mallocx};
constinit EntryPoint<void*(void*, std::size_t, int)> g_rallocx{"rallocx", fallback_rallocx};
constinit EntryPoint<std::size_t(void*, std::size_t, std::size_t, int)> g_xallocx{"xallocx",
                                                                                  fallback_xallocx};
constinit EntryPoint<void(void*, int)> g_dallocx{"dallocx", fallback_dallocx};
constinit EntryPoint<void(void*, std::size_t, int)> g_sdallocx{"sdallocx", fallback_sdallocx};

}  // namespace
}  // namespace rtrace::tracer

using namespace rtrace::tracer;  // NOLINT(google-build-using-namespace): the wrappers' one scope

extern "C" {

RTRACE_EXPORT void* mallocx(std::size_t size, int flags) {
  return entry_point_allocation("mallocx", size, __builtin_return_address(0),
                                [&] { return g_mallocx.get()(size, flags); });
}

RTRACE_EXPORT void* rallocx(void* old, std::size_t size, int flags) {
  return entry_point_reallocation("rallocx", old, size, __builtin_return_address(0),
                                  OnFailure::KeepsOld,
                                  [&] { return g_rallocx.get()(old, size, flags); });
}

RTRACE_EXPORT std::size_t xallocx(void* pointer, std::size_t size, std::size_t extra, int flags) {
  if (!memory_module_ready() || !memory_tracing_now()) {
    return g_xallocx.get()(pointer, size, extra, flags);
  }
  MemoryGuard guard;
  // The release is put in place before the call, as every release: the block may change size
  // under another thread's eyes only after it.
  MemoryRelease release("xallocx", pointer, __builtin_return_address(0));
  const std::size_t resized = g_xallocx.get()(pointer, size, extra, flags);
  if (resized < size) {
    release.cancel();  // not resized: the block is as it was
    return resized;
  }
  release.commit();
  record_memory_allocation("xallocx", size, pointer, __builtin_return_address(0));
  return resized;
}

RTRACE_EXPORT void dallocx(void* pointer, int flags) {
  entry_point_release("dallocx", pointer, __builtin_return_address(0),
                      [&] { g_dallocx.get()(pointer, flags); });
}

RTRACE_EXPORT void sdallocx(void* pointer, std::size_t size, int flags) {
  entry_point_release("sdallocx", pointer, __builtin_return_address(0),
                      [&] { g_sdallocx.get()(pointer, size, flags); });
}
}
