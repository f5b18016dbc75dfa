#include "tracer/output/trace_compressor.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <time.h>

#include <atomic>
#include <cstdint>

// Only the declarations: the functions are looked up in the library loaded at run time.
// ZSTD_customMem and ZSTD_createCCtx_advanced are in zstd's "static linking" section, exported
// by libzstd.so.1 since 1.0.
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "tracer/api/real_symbol.h"
#include "tracer/core/clock.h"

namespace rtrace::tracer {
namespace {

struct ZstdFunctions {
  ZSTD_CCtx* (*create)(ZSTD_customMem) = nullptr;
  std::size_t (*reset)(ZSTD_CCtx*, ZSTD_ResetDirective) = nullptr;
  std::size_t (*set_parameter)(ZSTD_CCtx*, ZSTD_cParameter, int) = nullptr;
  std::size_t (*compress)(ZSTD_CCtx*, ZSTD_outBuffer*, ZSTD_inBuffer*, ZSTD_EndDirective) = nullptr;
  unsigned (*is_error)(std::size_t) = nullptr;
};

ZstdFunctions g_zstd;
ZSTD_CCtx* g_context = nullptr;
// 0: not tried, 1: loading, 2: tried. With tracing off at the start the control thread loads
// zstd when tracing starts, and the destructor (exit) may ask at the same time.
std::atomic<int> g_load_state{0};
std::atomic<bool> g_ready{false};

// Room for one flushed piece of output at a time; bigger output goes out in several.
char g_output[std::size_t{256} * 1024];

// zstd's memory: each block its own mapping, its length in front (16 bytes keep the alignment
// malloc would give).
constexpr std::size_t kHeader = 16;

void* map_block(void* /*opaque*/, std::size_t size) {
  void* memory =
      ::mmap(nullptr, size + kHeader, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) {
    return nullptr;
  }
  *static_cast<std::size_t*>(memory) = size + kHeader;
  return static_cast<char*>(memory) + kHeader;
}

void unmap_block(void* /*opaque*/, void* address) {
  if (address != nullptr) {
    char* memory = static_cast<char*>(address) - kHeader;
    ::munmap(memory, *reinterpret_cast<std::size_t*>(memory));
  }
}

template <class Function>
bool look_up(void* library, Function& target, const char* name) {
  target = reinterpret_cast<Function>(::dlsym(library, name));
  return target != nullptr;
}

bool load() {
  // The loader's own dlopen: ours (process_hooks.cpp) would record the new mappings.
  void* (*real_dlopen)(const char*, int) = nullptr;
  find_real(real_dlopen, "dlopen");
  void* library =
      real_dlopen != nullptr ? real_dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL) : nullptr;
  if (library == nullptr) {
    return false;
  }
  if (!look_up(library, g_zstd.create, "ZSTD_createCCtx_advanced") ||
      !look_up(library, g_zstd.reset, "ZSTD_CCtx_reset") ||
      !look_up(library, g_zstd.set_parameter, "ZSTD_CCtx_setParameter") ||
      !look_up(library, g_zstd.compress, "ZSTD_compressStream2") ||
      !look_up(library, g_zstd.is_error, "ZSTD_isError")) {
    return false;
  }
  g_context = g_zstd.create(ZSTD_customMem{map_block, unmap_block, nullptr});
  return g_context != nullptr;
}

}  // namespace

bool compressor_load() {
  int expected = 0;
  if (g_load_state.compare_exchange_strong(expected, 1)) {
    g_ready.store(load(), std::memory_order_release);
    g_load_state.store(2, std::memory_order_release);
  }
  // Another thread is loading: wait for its answer (up to 2 s on the clock, not counted in
  // sleeps, which overrun on a loaded machine; then uncompressed).
  const std::uint64_t deadline = monotonic_nanoseconds() + 2'000'000'000;
  while (g_load_state.load(std::memory_order_acquire) == 1 && monotonic_nanoseconds() < deadline) {
    timespec pause{0, 1000000};
    ::nanosleep(&pause, nullptr);
  }
  return g_ready.load(std::memory_order_acquire);
}

bool compressor_ready() {
  return g_ready.load(std::memory_order_acquire);
}

bool compressor_begin(int level) {
  return compressor_ready() && !g_zstd.is_error(g_zstd.reset(g_context, ZSTD_reset_session_only)) &&
         !g_zstd.is_error(g_zstd.set_parameter(g_context, ZSTD_c_compressionLevel, level));
}

bool compressor_write(const char* data, std::size_t size, bool end, CompressedSink sink) {
  ZSTD_inBuffer in{data, size, 0};
  const ZSTD_EndDirective directive = end ? ZSTD_e_end : ZSTD_e_flush;
  for (;;) {
    ZSTD_outBuffer out{g_output, sizeof g_output, 0};
    const std::size_t left = g_zstd.compress(g_context, &out, &in, directive);
    if (g_zstd.is_error(left)) {
      return false;
    }
    if (out.pos > 0 && !sink(g_output, out.pos)) {
      return false;
    }
    // Done when zstd has taken all the input and has nothing more to flush.
    if (left == 0 && in.pos == in.size) {
      return true;
    }
  }
}

}  // namespace rtrace::tracer
