#include "tracer/unwinder.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <link.h>

#include <atomic>
#include <cstring>

#include "tracer/environment.h"
#include "tracer/stack_walker.h"
#include "tracer/thread_rings.h"

namespace rtrace::tracer {
namespace {

// Whether the fast unwinder (stack_walker.h) is tried first; RTRACE_UNWINDER=libunwind turns it
// off (to compare the two, or to measure what it saves).
bool g_walk_first = true;

// Frames of our own that can sit above the traced function's caller: the exported wrapper, the
// module's helper, rtrace_prepare and its helpers, unw_backtrace itself.
constexpr std::uint32_t kMaxOwnFrames = 16;
constexpr std::uint32_t kMaxFrames = 256 + kMaxOwnFrames;

// The most frames of our own seen above a traced function's caller (the index of its return
// address in what unw_backtrace returns); grows when a deeper path shows up.
std::atomic<std::uint32_t> g_own_frames{3};

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

bool in_tracer_code(std::uintptr_t value) {
  for (std::size_t i = 0; i < g_tracer_code_count; ++i) {
    if (value >= g_tracer_code[i].from && value < g_tracer_code[i].to) {
      return true;
    }
  }
  return false;
}

// The memo's key besides the stack: the call site and the depth asked for (what the frames
// kept depend on besides the walk). Call sites fit in 48 bits (x86-64 user space).
std::uintptr_t memo_tag(const void* return_address, std::uint32_t capacity) {
  return reinterpret_cast<std::uintptr_t>(return_address) ^ (std::uintptr_t{capacity} << 48);
}

// Up to `wanted` return addresses of the current stack, innermost first, from the fast
// unwinder, or from libunwind when the fast one meets a frame it does not know; or
// kWalkRemembered (`memo` has the result).
__attribute__((always_inline)) inline int raw_backtrace(std::uintptr_t* raw, std::uint32_t wanted,
                                                        WalkMemo* memo, std::uintptr_t tag) {
  if (g_walk_first) {
    const int got = walk_stack(raw, wanted, memo, tag);
    if (got != kWalkUnknownFrame) {
      return got;
    }
  }
  void* addresses[kMaxFrames];
  const int got = unw_backtrace(addresses, static_cast<int>(wanted));
  for (int i = 0; i < got; ++i) {
    raw[i] = reinterpret_cast<std::uintptr_t>(addresses[i]);
  }
  return got;
}

}  // namespace

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

namespace {

// capture_backtrace, and when `in_place` is not null, a walk found in the memo is not copied to
// `frames` but pointed to by *in_place.
// Inlined into both: a frame of its own would be one more frame for every walk to go through.
__attribute__((always_inline)) inline std::uint32_t capture(std::uintptr_t* frames,
                                                            std::uint32_t capacity,
                                                            const void* return_address,
                                                            const std::uintptr_t** in_place) {
  if (capacity == 0) {
    return 0;
  }
  if (capacity > kMaxFrames - kMaxOwnFrames) {
    capacity = kMaxFrames - kMaxOwnFrames;
  }
  std::uintptr_t raw[kMaxFrames];
  // Unwinding costs per frame: ask only for as many of our own frames as we have seen, and
  // unwind again with room for all of them when that was not enough.
  std::uint32_t own = g_own_frames.load(std::memory_order_relaxed);
  // This thread's last walks (walk_memo.h): a traced call made again from the same place over
  // the same stack gets the frames kept the first time, without a walk (at depth 10, about 600
  // instructions come down to a comparison of a word or two per frame).
  WalkMemo* memo = my_walk_memo();
  const std::uintptr_t tag = memo_tag(return_address, capacity);
  for (;;) {
    const std::uint32_t wanted = capacity + own;
    const int got = raw_backtrace(raw, wanted, memo, tag);
    if (got == kWalkRemembered) {
      return in_place != nullptr ? memo->remembered_in_place(in_place) : memo->remembered(frames);
    }
    const auto count = got > 0 ? static_cast<std::uint32_t>(got) : 0U;
    // The caller's frame is wherever the return address shows up first: how many frames of
    // ours sit above it depends on the entry point (a C++ operator has more than malloc) and on
    // inlining, so search everything the unwinder returned.
    std::uint32_t first = 0;
    while (first < count && raw[first] != reinterpret_cast<std::uintptr_t>(return_address)) {
      ++first;
    }
    while (first < count && in_tracer_code(raw[first])) {
      ++first;  // the caller is another tracer library passing the call on (see CodeRange)
    }
    const bool found = first < count;
    // The buffer filled up: the stack may go on below what we got.
    const bool cut = count == wanted && (!found || count - first < capacity);
    if (cut && own < kMaxOwnFrames) {
      own = kMaxOwnFrames;
      continue;
    }
    if (!found) {
      // The unwinder could not walk through our frames: the caller is all we know for sure.
      frames[0] = reinterpret_cast<std::uintptr_t>(return_address);
      return 1;
    }
    if (first > g_own_frames.load(std::memory_order_relaxed)) {
      g_own_frames.store(first < kMaxOwnFrames ? first : kMaxOwnFrames, std::memory_order_relaxed);
    }
    const std::uint32_t stored = count - first < capacity ? count - first : capacity;
    std::memcpy(frames, raw + first, sizeof *frames * stored);
    if (memo != nullptr) {
      memo->keep(frames, stored);  // nothing when the walk was libunwind's
    }
    return stored;
  }
}

}  // namespace

std::uint32_t capture_backtrace(std::uintptr_t* frames, std::uint32_t capacity,
                                const void* return_address) {
  return capture(frames, capacity, return_address, nullptr);
}

std::uint32_t capture_backtrace_in_place(std::uintptr_t* scratch, std::uint32_t capacity,
                                         const void* return_address,
                                         const std::uintptr_t** frames) {
  *frames = scratch;
  return capture(scratch, capacity, return_address, frames);
}

}  // namespace rtrace::tracer
