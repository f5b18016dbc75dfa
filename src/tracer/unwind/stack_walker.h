// The tracer's fast unwinder: walks the stack with the call frame information rules of each
// return address (cfi_rules.h), remembered in a table shared by all threads, so that a stack
// whose frames have been seen before costs a table lookup and two loads per frame. It gives up
// (and the caller asks libunwind, unwinder.h) on any frame whose rule it does not know for sure:
// a frame without call frame information, a signal frame, a realigned stack, an expression.
// No frame pointers are assumed: code built without them (Debian's libc) unwinds the same.
#pragma once

#include <atomic>
#include <cstdint>

#include "tracer/unwind/walk_memo.h"

namespace rtrace::tracer {

inline constexpr int kWalkUnknownFrame = -1;
inline constexpr int kWalkRemembered = -2;

// Where a walk starts: an instruction of a frame that stays live during the walk, and the stack
// and frame pointers there.
struct WalkStart {
  std::uintptr_t pc;
  std::uintptr_t rsp;
  std::uintptr_t rbp;
};

// The frame this is inlined into, as a walk's start: the instruction after the lea, whose rule
// is looked up at that very address (not minus one), and the registers there.
__attribute__((always_inline)) inline WalkStart walk_start_here() {
  WalkStart start{};
  __asm__ volatile(
      "lea 0(%%rip), %0\n\t"
      "mov %%rsp, %1\n\t"
      "mov %%rbp, %2"
      : "=r"(start.pc), "=r"(start.rsp), "=r"(start.rbp));
  return start;
}

// The rules' generation (stack_walker.cpp): part of every rule's key and of the memo's.
// Read by every traced call's walk, written only when a library is loaded or unloaded: alone on
// its cache line, so that no variable another thread writes all the time (such as the writer
// thread's encoder, which the linker may place beside it) turns each of those reads into a cache
// miss, about 12 % more CPU per traced call.
struct alignas(64) FrameRulesGeneration {
  std::atomic<std::uint64_t> value{1};
};
extern FrameRulesGeneration g_frame_rules_generation;

// The walk from `start` of `generation`'s rules, its reads written into `entry` (null: not
// written down; see walk_stack) as long as they fit (WalkMemo::kMaxReads; a longer walk is not
// written down); the frame of `start` must be live and its caller's.
int walk_from(const WalkStart& start, std::uint64_t generation, std::uintptr_t* frames,
              std::uint32_t capacity, WalkMemo* memo, WalkMemo::Entry* entry);

// walk_stack from `start`: kWalkRemembered when `memo` holds the walk, or the walk. Inline, so
// that a caller that takes `start` in its own frame (rtrace_record_transient, through
// backtrace_capture.h) adds no frame of walk_stack's for the walk to go through and for the memo
// to compare, and no call when the memo has the walk.
__attribute__((always_inline)) inline int walk_remembered_or_from(const WalkStart& start,
                                                                  std::uintptr_t* frames,
                                                                  std::uint32_t capacity,
                                                                  WalkMemo* memo,
                                                                  std::uintptr_t tag) {
  const std::uint64_t generation = g_frame_rules_generation.value.load(std::memory_order_acquire);
  WalkMemo::Entry* entry = nullptr;
  if (memo != nullptr) {
    if (memo->look_up(generation, tag, capacity, start.rsp, start.rbp)) {
      return kWalkRemembered;
    }
    entry = memo->filling;
    memo->filling = nullptr;  // until the walk is complete
  }
  return walk_from(start, generation, frames, capacity, memo, entry);
}

// Stores up to `capacity` return addresses, the first being walk_stack's own return address,
// and returns how many; or kWalkUnknownFrame when a frame's rule is not known.
// Takes no lock and never allocates.
// With a `memo` (this thread's), a walk from the same place over the same stack words as one the
// memo holds under the same `tag` (any word the caller makes part of the key) is not done again:
// kWalkRemembered, and memo->remembered() gives what the caller kept of it. Otherwise the walk
// writes its reads into the memo, and the caller may keep() its result for the next time.
int walk_stack(std::uintptr_t* frames, std::uint32_t capacity, WalkMemo* memo = nullptr,
               std::uintptr_t tag = 0);

// Forgets every remembered rule: code came or went (dlopen, dlclose).
void forget_frame_rules();

}  // namespace rtrace::tracer
