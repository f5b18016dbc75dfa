// The tracer's fast unwinder (src/tracer/unwind/stack_walker.h) against libunwind, on the same
// stacks: call chains of many frame shapes (unwind/frame_shapes.c: alloca, large locals, the C
// library's qsort, which Debian builds without frame pointers), built with and without frame
// pointers, in the main thread and in another thread. The fast walk must give exactly libunwind's
// frames, whole stacks down to the thread's start, or give up (signal frames).
#define UNW_LOCAL_ONLY
#include "tracer/unwind/stack_walker.h"

#include <gtest/gtest.h>
#include <libunwind.h>
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "programs/own_frame.h"
#include "unwind/frame_shapes.h"

namespace rtrace::tracer {
namespace {

using Frames = std::vector<std::uintptr_t>;

// The stack at the bottom of a chain, as each unwinder sees it.
struct Captured {
  std::uintptr_t leaf_return = 0;  // where the chain called the leaf
  int walked = 0;                  // walk_stack's result
  Frames fast;                     // walk_stack
  Frames backtrace;                // libunwind's unw_backtrace (its cached fast path)
  Frames stepped;                  // libunwind's unw_step, frame by frame (its slow path)
};

constexpr int kMaxFrames = 512;

__attribute__((noinline)) void capture(void* context) {
  auto& captured = *static_cast<Captured*>(context);
  captured.leaf_return = reinterpret_cast<std::uintptr_t>(__builtin_return_address(0));
  std::uintptr_t frames[kMaxFrames];
  captured.walked = walk_stack(frames, kMaxFrames);
  if (captured.walked > 0) {
    captured.fast.assign(frames, frames + captured.walked);
  }
  void* addresses[kMaxFrames];
  const int got = unw_backtrace(addresses, kMaxFrames);
  for (int i = 0; i < got; ++i) {
    captured.backtrace.push_back(reinterpret_cast<std::uintptr_t>(addresses[i]));
  }
  unw_context_t context_now;
  unw_cursor_t cursor;
  unw_getcontext(&context_now);
  unw_init_local(&cursor, &context_now);
  while (unw_step(&cursor) > 0) {
    unw_word_t ip = 0;
    unw_get_reg(&cursor, UNW_REG_IP, &ip);
    captured.stepped.push_back(ip);
  }
}

// The frames from the chain's call of the leaf down: what every unwinder must agree on (the
// frames above it are each unwinder's own).
Frames from_leaf(const Frames& frames, std::uintptr_t leaf_return) {
  const auto start = std::find(frames.begin(), frames.end(), leaf_return);
  return Frames(start, frames.end());
}

using Chain = int (*)(int, chain_leaf, void*);

Captured run_chain(Chain chain, int depth) {
  Captured captured;
  chain(depth, capture, &captured);
  return captured;
}

void expect_libunwinds_frames(const Captured& captured, int depth) {
  ASSERT_GT(captured.walked, 0);
  const Frames fast = from_leaf(captured.fast, captured.leaf_return);
  const Frames stepped = from_leaf(captured.stepped, captured.leaf_return);
  // The chain's levels, qsort's frames, the test's frames and the thread's start.
  ASSERT_GT(fast.size(), static_cast<std::size_t>(depth) + 4);
  EXPECT_EQ(fast, stepped);
  EXPECT_EQ(fast, from_leaf(captured.backtrace, captured.leaf_return));
}

TEST(FastUnwinder, GivesLibunwindsWholeStackWithFramePointers) {
  for (const int depth : {0, 1, 7, 20, 45}) {
    SCOPED_TRACE(depth);
    expect_libunwinds_frames(run_chain(chain_with_frame_pointers, depth), depth);
  }
}

TEST(FastUnwinder, GivesLibunwindsWholeStackWithoutFramePointers) {
  for (const int depth : {0, 1, 7, 20, 45}) {
    SCOPED_TRACE(depth);
    expect_libunwinds_frames(run_chain(chain_without_frame_pointers, depth), depth);
  }
}

void* run_both_chains(void* failures) {
  for (const Chain chain : {chain_with_frame_pointers, chain_without_frame_pointers}) {
    const Captured captured = run_chain(chain, 12);
    const Frames fast = from_leaf(captured.fast, captured.leaf_return);
    if (captured.walked <= 0 || fast.size() < 16 ||
        fast != from_leaf(captured.stepped, captured.leaf_return)) {
      ++*static_cast<int*>(failures);
    }
  }
  return nullptr;
}

TEST(FastUnwinder, GivesLibunwindsWholeStackInAnotherThread) {
  int failures = 0;
  pthread_t thread;
  ASSERT_EQ(pthread_create(&thread, nullptr, run_both_chains, &failures), 0);
  ASSERT_EQ(pthread_join(thread, nullptr), 0);
  EXPECT_EQ(failures, 0);
}

TEST(FastUnwinder, RemembersRulesAndForgetsThemWhenCodeChanges) {
  // The first walk computes the rules, the second finds them remembered, the third computes
  // them again after they were forgotten; all from the same call site, so all the same.
  std::vector<Frames> walks;
  for (int round = 0; round < 3; ++round) {
    if (round == 2) {
      forget_frame_rules();
    }
    const Captured captured = run_chain(chain_without_frame_pointers, 9);
    expect_libunwinds_frames(captured, 9);
    walks.push_back(from_leaf(captured.fast, captured.leaf_return));
  }
  EXPECT_EQ(walks[0], walks[1]);
  EXPECT_EQ(walks[0], walks[2]);
}

TEST(FastUnwinder, StopsAtTheRequestedNumberOfFrames) {
  std::uintptr_t all[kMaxFrames];
  const int whole = walk_stack(all, kMaxFrames);
  ASSERT_GT(whole, 3);
  std::uintptr_t some[3];
  ASSERT_EQ(walk_stack(some, 3), 3);
  // walk_stack's own return address differs between the two calls; its callers' do not.
  EXPECT_EQ(some[1], all[1]);
  EXPECT_EQ(some[2], all[2]);
}

// ---- the memory of recent walks (walk_memo.h) ----------------------------------------------

// A walk with this thread's memo, from one fixed place (its caller, remembered_walk, is always
// called from `through_a` or `through_b` below, which have the same frame size): what the
// tracer's capture_backtrace does, keeping the whole walk as its result.
struct MemoWalk {
  int walked = 0;  // walk_stack's result: a count, or kWalkRemembered
  Frames frames;
};

WalkMemo g_memo{};

// The frames of a walk that returned `walked` into `frames`: the memo's when it remembered the
// walk, else the walk's, which the memo then keeps.
Frames kept_walk(int walked, std::uintptr_t* frames) {
  if (walked == kWalkRemembered) {
    const std::uint32_t count = g_memo.remembered(frames);
    return Frames(frames, frames + count);
  }
  if (walked <= 0) {
    return {};
  }
  g_memo.keep(frames, static_cast<std::uint32_t>(walked));
  return Frames(frames, frames + walked);
}

OWN_FRAME MemoWalk remembered_walk() {
  MemoWalk walk;
  std::uintptr_t frames[WalkMemo::kMaxFrames];
  walk.walked = walk_stack(frames, WalkMemo::kMaxFrames, &g_memo, 42);
  walk.frames = kept_walk(walk.walked, frames);
  return walk;
}

// `walk` called through a frame of its own, one per `Which` (OWN_FRAME: never folded into another),
// so that two of them differ only in the return address they leave on the stack.
template <typename Walk, Walk (*walk)(), int Which>
OWN_FRAME Walk through() {
  Walk result = walk();
  __asm__ volatile("" ::: "memory");  // no tail call: this frame stays on the stack
  return result;
}

constexpr MemoWalk (*through_a)() = through<MemoWalk, remembered_walk, 0>;
constexpr MemoWalk (*through_b)() = through<MemoWalk, remembered_walk, 1>;

// Walks through the given callers in turn, all called from one place (the loop's one indirect
// call: the stacks differ only where the callers do).
using Through = MemoWalk (*)();
OWN_FRAME std::vector<MemoWalk> walks_through(std::initializer_list<Through> order) {
  std::vector<MemoWalk> walks;
  for (const Through through : order) {
    walks.push_back(through());
  }
  return walks;
}

TEST(WalkMemo, ASecondWalkFromTheSamePlaceIsRememberedAndEqual) {
  g_memo = WalkMemo{};
  const std::vector<MemoWalk> walks = walks_through({through_a, through_a, through_a});
  ASSERT_GT(walks[0].walked, 3);
  EXPECT_EQ(walks[1].walked, kWalkRemembered);
  EXPECT_EQ(walks[1].frames, walks[0].frames);
  EXPECT_EQ(walks[2].walked, kWalkRemembered);
  EXPECT_EQ(walks[2].frames, walks[0].frames);
}

TEST(WalkMemo, AnotherCallerAtTheSameDepthIsWalkedAndGetsItsOwnStack) {
  g_memo = WalkMemo{};
  const std::vector<MemoWalk> walks =
      walks_through({through_a, through_b, through_a, through_b, through_b});
  const MemoWalk& a = walks[0];
  const MemoWalk& b = walks[1];
  ASSERT_GT(a.walked, 3);
  // Same place, same stack pointer, same tag: only the return address into through_a or
  // through_b differs, and that is enough for the memo to walk again.
  EXPECT_GT(b.walked, 3);
  ASSERT_EQ(b.frames.size(), a.frames.size());
  EXPECT_NE(a.frames[1], b.frames[1]);
  EXPECT_EQ(Frames(a.frames.begin() + 2, a.frames.end()),
            Frames(b.frames.begin() + 2, b.frames.end()));
  for (std::size_t i = 2; i < walks.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(walks[i].walked, kWalkRemembered);
    EXPECT_EQ(walks[i].frames, i == 2 ? a.frames : b.frames);
  }
}

// The same walk started in the caller's own frame (walk_start_here, walk_remembered_or_from:
// what backtrace_capture.h does inside rtrace_record_transient and capture_backtrace, with no
// frame of walk_stack's): walk_stack's frames without its first (its return address into this
// function), then remembered from that frame as walk_stack's are, and walked again from
// another caller.
struct BothWalks {
  int from_here = 0;
  Frames here;
  Frames stack;
};

OWN_FRAME BothWalks walks_here_and_stack() {
  BothWalks walks;
  std::uintptr_t frames[WalkMemo::kMaxFrames];
  walks.from_here =
      walk_remembered_or_from(walk_start_here(), frames, WalkMemo::kMaxFrames, &g_memo, 43);
  walks.here = kept_walk(walks.from_here, frames);
  const int count = walk_stack(frames, WalkMemo::kMaxFrames);
  if (count > 0) {
    walks.stack.assign(frames, frames + count);
  }
  return walks;
}

constexpr BothWalks (*both_through_a)() = through<BothWalks, walks_here_and_stack, 0>;
constexpr BothWalks (*both_through_b)() = through<BothWalks, walks_here_and_stack, 1>;

TEST(WalkMemo, AWalkFromTheCallersOwnFrameIsWalkStacksWithoutItsFrame) {
  g_memo = WalkMemo{};
  std::vector<BothWalks> walks;
  for (const auto through : {both_through_a, both_through_a, both_through_b, both_through_a}) {
    walks.push_back(through());
  }
  ASSERT_GT(walks[0].from_here, 2);
  ASSERT_GT(walks[0].stack.size(), 3U);
  EXPECT_EQ(walks[0].here, Frames(walks[0].stack.begin() + 1, walks[0].stack.end()));
  EXPECT_EQ(walks[1].from_here, kWalkRemembered);
  EXPECT_EQ(walks[1].here, walks[0].here);
  EXPECT_GT(walks[2].from_here, 2);  // another caller: walked again, its own stack
  EXPECT_EQ(walks[2].here, Frames(walks[2].stack.begin() + 1, walks[2].stack.end()));
  EXPECT_NE(walks[2].here[0], walks[0].here[0]);
  EXPECT_EQ(walks[3].from_here, kWalkRemembered);
  EXPECT_EQ(walks[3].here, walks[0].here);
}

// remembered_walk at the bottom of a chain: each depth is a stack of its own.
void walk_at_chain_bottom(void* context) {
  static_cast<std::vector<MemoWalk>*>(context)->push_back(through_a());
}

TEST(WalkMemo, ChainsOfOtherDepthsAndShapesAreWalkedThenRemembered) {
  g_memo = WalkMemo{};
  for (const Chain chain : {chain_with_frame_pointers, chain_without_frame_pointers}) {
    std::vector<MemoWalk> walks;
    for (int round = 0; round < 2; ++round) {
      for (const int depth : {1, 2, 3}) {
        chain(depth, walk_at_chain_bottom, &walks);
      }
    }
    ASSERT_EQ(walks.size(), 6U);
    for (std::size_t i = 0; i < 3; ++i) {
      SCOPED_TRACE(i);
      EXPECT_GT(walks[i].walked, 0);
      EXPECT_EQ(walks[i + 3].walked, kWalkRemembered);
      EXPECT_EQ(walks[i + 3].frames, walks[i].frames);
    }
    // Different depths, different stacks.
    EXPECT_NE(walks[0].frames, walks[1].frames);
    EXPECT_NE(walks[1].frames, walks[2].frames);
  }
}

// Runs `chain` from one of two call sites of this one frame: the stacks at the chain's bottom are
// then the same (same stack pointer, same tag) but for the return address into this function,
// the outermost word the walk reads of the chain. (The asm after each call keeps the two calls
// apart: the compiler may not merge them into one.)
OWN_FRAME void chain_from_site(Chain chain, int depth, bool second, std::vector<MemoWalk>* walks) {
  if (second) {
    chain(depth, walk_at_chain_bottom, walks);
    __asm__ volatile("nop" ::: "memory");
  } else {
    chain(depth, walk_at_chain_bottom, walks);
    __asm__ volatile("nop\n\tnop" ::: "memory");
  }
}

// The memo compares its reads a group at a time (walk_memo.h): a stack that differs from the
// remembered one in a single word, at every position of a group (the chain's depth moves it), is
// walked again, and each stack is then remembered as its own.
TEST(WalkMemo, AStackDifferingInOneDeepWordIsWalkedAgainAtEveryPosition) {
  for (const Chain chain : {chain_with_frame_pointers, chain_without_frame_pointers}) {
    for (int depth = 0; depth < 8; ++depth) {
      SCOPED_TRACE(depth);
      g_memo = WalkMemo{};
      std::vector<MemoWalk> walks;
      for (const bool second : {false, true, false, true}) {
        chain_from_site(chain, depth, second, &walks);
      }
      ASSERT_EQ(walks.size(), 4U);
      ASSERT_GT(walks[0].walked, 3);
      EXPECT_GT(walks[1].walked, 3);  // walked again, not taken from the memo
      ASSERT_EQ(walks[1].frames.size(), walks[0].frames.size());
      std::size_t differing = 0;
      for (std::size_t i = 0; i < walks[0].frames.size(); ++i) {
        differing += walks[0].frames[i] != walks[1].frames[i] ? 1 : 0;
      }
      EXPECT_EQ(differing, 1U);  // the return address into chain_from_site
      EXPECT_EQ(walks[2].walked, kWalkRemembered);
      EXPECT_EQ(walks[2].frames, walks[0].frames);
      EXPECT_EQ(walks[3].walked, kWalkRemembered);
      EXPECT_EQ(walks[3].frames, walks[1].frames);
    }
  }
}

// A walk with room for far more frames than the memo keeps (a traced call at depth 64 asks for
// 64 and the tracer's own frames), kept as remembered_walk's.
constexpr std::uint32_t kDeepRoom = 256;

OWN_FRAME MemoWalk remembered_deep_walk() {
  MemoWalk walk;
  std::uintptr_t frames[kDeepRoom];
  walk.walked = walk_stack(frames, kDeepRoom, &g_memo, 44);
  walk.frames = kept_walk(walk.walked, frames);
  return walk;
}

void deep_walk_at_chain_bottom(void* context) {
  static_cast<std::vector<MemoWalk>*>(context)->push_back(remembered_deep_walk());
}

// Whether a walk is remembered depends on what it reads, not on the room asked for: a chain of
// 20 levels (more than 32 frames with the chain's and the test's own, fewer than 64) is
// remembered; one of 100 levels reads more than the memo keeps (WalkMemo::kMaxReads) and is
// walked, whole, every time.
TEST(WalkMemo, DeepStacksAreRememberedUpToTheReadsTheMemoKeeps) {
  for (const Chain chain : {chain_with_frame_pointers, chain_without_frame_pointers}) {
    for (const int depth : {20, 100}) {
      SCOPED_TRACE(depth);
      g_memo = WalkMemo{};
      std::vector<MemoWalk> walks;
      // One call site for both rounds (a count the compiler cannot see: a loop unrolled into two
      // calls would leave two return addresses, and two stacks).
      const volatile int rounds = 2;
      for (int round = 0; round < rounds; ++round) {
        chain(depth, deep_walk_at_chain_bottom, &walks);
      }
      ASSERT_EQ(walks.size(), 2U);
      const bool kept = depth == 20;
      if (kept) {
        ASSERT_GT(walks[0].walked, 32);
        ASSERT_LE(walks[0].walked, static_cast<int>(WalkMemo::kMaxFrames));
      } else {
        ASSERT_GT(walks[0].walked, static_cast<int>(WalkMemo::kMaxReads));
      }
      EXPECT_EQ(walks[1].walked, kept ? kWalkRemembered : walks[0].walked);
      EXPECT_EQ(walks[1].frames, walks[0].frames);
    }
  }
}

TEST(WalkMemo, ForgottenRulesMakeTheNextWalkAFreshOne) {
  g_memo = WalkMemo{};
  const std::vector<MemoWalk> walks = walks_through({through_a, through_a});
  ASSERT_EQ(walks[1].walked, kWalkRemembered);
  forget_frame_rules();
  const std::vector<MemoWalk> after = walks_through({through_a, through_a});
  // Walked again: the same stack down to walks_through (called from another line below it).
  EXPECT_EQ(after[0].walked, static_cast<int>(walks[0].frames.size()));
  ASSERT_GT(after[0].frames.size(), 3U);
  EXPECT_EQ(Frames(after[0].frames.begin(), after[0].frames.begin() + 3),
            Frames(walks[0].frames.begin(), walks[0].frames.begin() + 3));
  EXPECT_EQ(after[1].walked, kWalkRemembered);
  EXPECT_EQ(after[1].frames, after[0].frames);
}

TEST(WalkMemo, AWalkNotKeptIsNotRemembered) {
  g_memo = WalkMemo{};
  // The caller did not keep() its walks (libunwind's result, or a stack it could not use): each
  // walk from this one place walks again.
  for (int round = 0; round < 3; ++round) {
    std::uintptr_t frames[WalkMemo::kMaxFrames];
    EXPECT_GT(walk_stack(frames, WalkMemo::kMaxFrames, &g_memo, 7), 0) << round;
  }
}

int g_walked_in_handler = 0;

void on_signal(int) {
  std::uintptr_t frames[kMaxFrames];
  g_walked_in_handler = walk_stack(frames, kMaxFrames);
}

// A signal frame has no rule the fast unwinder knows: it gives the stack to libunwind.
TEST(FastUnwinder, LeavesSignalFramesToLibunwind) {
  struct sigaction action {};
  struct sigaction previous {};
  action.sa_handler = on_signal;
  ASSERT_EQ(sigaction(SIGUSR2, &action, &previous), 0);
  ASSERT_EQ(raise(SIGUSR2), 0);
  sigaction(SIGUSR2, &previous, nullptr);
  EXPECT_EQ(g_walked_in_handler, kWalkUnknownFrame);
}

}  // namespace
}  // namespace rtrace::tracer
