#include "tracer/unwind/unwinder.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <link.h>

#include <atomic>
#include <cstring>

#include "tracer/core/environment.h"
#include "tracer/unwind/backtrace_capture.h"
#include "tracer/unwind/stack_walker.h"

namespace rtrace::tracer {
namespace {

// The most frames of our own seen above a traced function's caller by capture_backtrace
// (backtrace_capture.h).
std::atomic<std::uint32_t> g_own_frames{2};

// The code of the tracer's own libraries (librtrace-*.so). A wrapper's caller may be another
// tracer library: librtrace-main.so's close passing the program's call on to the file module's,
// one module's close passing it on to the next module's. Those frames are not the program's:
// frame 0 is the first frame outside them.
struct CodeRange {
  std::uintptr_t from;
  std::uintptr_t to;
};
constexpr std::size_t kMaxTracerRanges = 32;
CodeRange g_tracer_code[kMaxTracerRanges];
std::size_t g_tracer_code_count = 0;

bool is_tracer_library(const char* path) {
  const char* slash = std::strrchr(path, '/');
  const char* name = slash != nullptr ? slash + 1 : path;
  return std::strncmp(name, "librtrace-", 10) == 0;
}

int note_tracer_code(dl_phdr_info* info, std::size_t, void*) {
  if (info->dlpi_name == nullptr || !is_tracer_library(info->dlpi_name)) {
    return 0;
  }
  for (int i = 0; i < info->dlpi_phnum && g_tracer_code_count < kMaxTracerRanges; ++i) {
    const ElfW(Phdr)& header = info->dlpi_phdr[i];
    if (header.p_type == PT_LOAD && (header.p_flags & PF_X) != 0) {
      const std::uintptr_t from = info->dlpi_addr + header.p_vaddr;
      g_tracer_code[g_tracer_code_count++] = CodeRange{from, from + header.p_memsz};
    }
  }
  return 0;
}

}  // namespace

namespace capture_detail {

bool g_walk_first = true;

bool in_tracer_code(std::uintptr_t value) {
  for (std::size_t i = 0; i < g_tracer_code_count; ++i) {
    if (value >= g_tracer_code[i].from && value < g_tracer_code[i].to) {
      return true;
    }
  }
  return false;
}

}  // namespace capture_detail

using capture_detail::g_walk_first;

void init_unwinder() {
  const char* unwinder = environment_value("RTRACE_UNWINDER");
  g_walk_first = unwinder == nullptr || std::strcmp(unwinder, "libunwind") != 0;
  unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
  g_tracer_code_count = 0;
  ::dl_iterate_phdr(note_tracer_code, nullptr);
}

void unwinder_modules_changed() {
  forget_frame_rules();
  unw_flush_cache(unw_local_addr_space, 0, 0);
}

std::uint32_t capture_backtrace(std::uintptr_t* frames, std::uint32_t capacity,
                                const void* return_address) {
  return capture_detail::capture(frames, capacity, return_address, nullptr, g_own_frames);
}

}  // namespace rtrace::tracer
