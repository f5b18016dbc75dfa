// The body of capture_backtrace (unwinder.h), inline, for an entry point that must not add a
// frame of its own below the traced function: every frame of ours is one more for every walk to
// go through, and one more word for the walk memo (walk_memo.h) to compare on every call
// (rtrace_record_transient, every memory transfer: about 20 instructions a transfer).
// unwinder.cpp builds capture_backtrace from it.
#pragma once

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <atomic>
#include <cstdint>
#include <cstring>

#include "tracer/core/thread_rings.h"
#include "tracer/unwind/stack_walker.h"
#include "tracer/unwind/walk_memo.h"

namespace rtrace::tracer::capture_detail {

// Frames of our own that can sit above the traced function's caller: the exported wrapper, the
// module's helper, rtrace_prepare and its helpers, unw_backtrace itself.
inline constexpr std::uint32_t kMaxOwnFrames = 16;
inline constexpr std::uint32_t kMaxFrames = 256 + kMaxOwnFrames;

// Whether the fast unwinder (stack_walker.h) is tried first; RTRACE_UNWINDER=libunwind turns it
// off (to compare the two, or to measure what it saves). Set once by init_unwinder.
extern bool g_walk_first;

// Whether `value` is in the code of one of the tracer's own libraries (librtrace-*.so): a
// wrapper's caller may be another tracer library passing the program's call on (unwinder.cpp).
bool in_tracer_code(std::uintptr_t value);

// The memo's key besides the stack: the call site and the depth asked for (what the frames
// kept depend on besides the walk). Call sites fit in 48 bits (x86-64 user space).
inline std::uintptr_t memo_tag(const void* return_address, std::uint32_t capacity) {
  return reinterpret_cast<std::uintptr_t>(return_address) ^ (std::uintptr_t{capacity} << 48);
}

// Up to `wanted` return addresses of the current stack, innermost first, from the fast
// unwinder, or from libunwind when the fast one meets a frame it does not know; or
// kWalkRemembered (`memo` has the result).
__attribute__((always_inline)) inline int raw_backtrace(std::uintptr_t* raw, std::uint32_t wanted,
                                                        WalkMemo* memo, std::uintptr_t tag) {
  if (g_walk_first) {
    // From this frame (the entry point's, this being inlined into it): no frame of walk_stack's.
    const int got = walk_remembered_or_from(walk_start_here(), raw, wanted, memo, tag);
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

// capture_backtrace, and when `in_place` is not null, a walk found in the memo is not copied to
// `frames`: *in_place is the memo's entry that has it (and stays null otherwise). `own_frames`: the
// most frames of our own seen above a traced function's caller on this path (the index of its
// return address in what the walk returns), which grows when a deeper path shows up; one counter
// per entry point, so that a path with fewer frames of ours does not walk (and have the memo
// compare) the others' extra. Always inlined: a frame of its own would be one more frame for every
// walk to go through.
__attribute__((always_inline)) inline std::uint32_t capture(
    std::uintptr_t* frames, std::uint32_t capacity, const void* return_address,
    WalkMemo::Entry** in_place, std::atomic<std::uint32_t>& own_frames) {
  if (capacity == 0) {
    return 0;
  }
  if (capacity > kMaxFrames - kMaxOwnFrames) {
    capacity = kMaxFrames - kMaxOwnFrames;
  }
  std::uintptr_t raw[kMaxFrames];
  // Unwinding costs per frame: ask only for as many of our own frames as we have seen, and
  // unwind again with room for all of them when that was not enough.
  std::uint32_t own = own_frames.load(std::memory_order_relaxed);
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
      ++first;  // the caller is another tracer library passing the call on (unwinder.cpp)
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
    if (first > own_frames.load(std::memory_order_relaxed)) {
      own_frames.store(first < kMaxOwnFrames ? first : kMaxOwnFrames, std::memory_order_relaxed);
    }
    const std::uint32_t stored = count - first < capacity ? count - first : capacity;
    std::memcpy(frames, raw + first, sizeof *frames * stored);
    if (memo != nullptr) {
      memo->keep(frames, stored);  // nothing when the walk was libunwind's
    }
    return stored;
  }
}

}  // namespace rtrace::tracer::capture_detail
