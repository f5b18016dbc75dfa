// apitrace's call sets: the grammar of lib/trace/trace_callset (numbers, ranges, steps, kinds of
// call, files) and what each part selects.
#include "formats/apitrace/call_set.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "formats/apitrace/call.h"
#include "formats/apitrace/call_flags.h"
#include "support/test_paths.h"

namespace rtrace::apitrace {
namespace {

// The calls 0..limit (flags 0) that `set` holds.
std::vector<std::uint64_t> members(const CallSet& set, std::uint64_t limit = 30,
                                   std::uint32_t flags = 0) {
  std::vector<std::uint64_t> in;
  for (std::uint64_t n = 0; n <= limit; ++n) {
    if (set.contains(n, flags)) {
      in.push_back(n);
    }
  }
  return in;
}

std::string error_of(const std::string& text) {
  try {
    CallSet::parse(text);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "no error";
}

using Numbers = std::vector<std::uint64_t>;

TEST(CallSet, NumbersRangesStepsAndSeparators) {
  EXPECT_EQ(members(CallSet()).size(), 31U);  // no --calls: everything
  EXPECT_EQ(members(CallSet::parse("4")), (Numbers{4}));
  EXPECT_EQ(members(CallSet::parse("1,2,4,5")), (Numbers{1, 2, 4, 5}));
  EXPECT_EQ(members(CallSet::parse("1 2\t4\n5")), (Numbers{1, 2, 4, 5}));  // blanks separate
  EXPECT_EQ(members(CallSet::parse("3-6")), (Numbers{3, 4, 5, 6}));
  EXPECT_EQ(members(CallSet::parse("3 - 6")), (Numbers{3, 4, 5, 6}));  // blanks around operators
  EXPECT_EQ(members(CallSet::parse("1-10/3")), (Numbers{1, 4, 7, 10}));
  EXPECT_EQ(members(CallSet::parse("27-")), (Numbers{27, 28, 29, 30}));
  EXPECT_EQ(members(CallSet::parse("27-/2")), (Numbers{27, 29}));
  EXPECT_EQ(members(CallSet::parse("*/10")), (Numbers{0, 10, 20, 30}));
  EXPECT_EQ(members(CallSet::parse("*")).size(), 31U);
  EXPECT_EQ(members(CallSet::parse("6-3")), Numbers{});  // an empty range, as in apitrace
  EXPECT_EQ(members(CallSet::parse("")), Numbers{});
  EXPECT_EQ(members(CallSet::parse(",,5,,")), (Numbers{5}));
  // Overlapping and touching ranges.
  EXPECT_EQ(members(CallSet::parse("5-8,1-5,9,20-22,21")),
            (Numbers{1, 2, 3, 4, 5, 6, 7, 8, 9, 20, 21, 22}));
  EXPECT_TRUE(CallSet::parse("18446744073709551615").contains(UINT64_MAX, 0));
}

TEST(CallSet, KindsOfCallFollowTheFlagsApitraceGivesByName) {
  const std::uint32_t swap = call_flags_for("glXSwapBuffers");
  const std::uint32_t draw = call_flags_for("glDrawElements");
  const std::uint32_t bind_fbo = call_flags_for("glBindFramebuffer");
  const std::uint32_t plain = call_flags_for("glEnable");
  EXPECT_EQ(swap, kFlagEndFrame | kFlagSwapRenderTarget);
  EXPECT_EQ(draw, kFlagRender);
  EXPECT_EQ(bind_fbo, kFlagSwapRenderTarget);
  EXPECT_EQ(call_flags_for("IDirect3DDevice9::DrawIndexedPrimitive"), kFlagRender);
  EXPECT_EQ(call_flags_for("IDirect3DViewport3::Clear2"), kFlagRender);
  EXPECT_EQ(call_flags_for("glClear"), kFlagRender);
  EXPECT_EQ(call_flags_for("glClearColor"), 0U);

  const CallSet frame = CallSet::parse("frame");
  EXPECT_TRUE(frame.contains(7, swap));
  EXPECT_FALSE(frame.contains(7, draw));
  EXPECT_FALSE(frame.contains(7, bind_fbo));
  EXPECT_FALSE(frame.contains(7, plain));
  for (const char* text : {"draw", "render"}) {
    const CallSet set = CallSet::parse(text);
    EXPECT_TRUE(set.contains(7, draw)) << text;
    EXPECT_FALSE(set.contains(7, swap)) << text;
  }
  for (const char* text : {"fbo", "rendertarget"}) {
    const CallSet set = CallSet::parse(text);
    EXPECT_TRUE(set.contains(7, swap)) << text;
    EXPECT_TRUE(set.contains(7, bind_fbo)) << text;
    EXPECT_FALSE(set.contains(7, draw)) << text;
  }
  // A kind within a range.
  const CallSet early_draws = CallSet::parse("1-1000/draw");
  EXPECT_TRUE(early_draws.contains(1000, draw));
  EXPECT_FALSE(early_draws.contains(1001, draw));
  EXPECT_FALSE(early_draws.contains(0, draw));
  EXPECT_FALSE(early_draws.contains(5, plain));
  EXPECT_TRUE(CallSet::parse("*/frame").contains(99, swap));
  // A plain number holds the call whatever its flags.
  EXPECT_TRUE(CallSet::parse("5,frame").contains(5, plain));
}

TEST(CallSet, RepeatedSetsAddUp) {
  CallSet set;
  set.merge("1-2");
  set.merge("5,frame");
  EXPECT_EQ(members(set), (Numbers{1, 2, 5}));
  EXPECT_TRUE(set.contains(20, kFlagEndFrame));
}

TEST(CallSet, WhatItCannotReadIsNamed) {
  EXPECT_EQ(error_of("x-y"),
            "cannot read the call set 'x-y': 'x' is not a kind of call (frame, draw, render, fbo, "
            "rendertarget)");
  EXPECT_EQ(error_of("Frame"),
            "cannot read the call set 'Frame': a call number, '*' or a kind "
            "of call expected at 'Frame'");
  EXPECT_EQ(error_of("1-5/0"), "cannot read the call set '1-5/0': a step of 0");
  EXPECT_EQ(error_of("1-5/"),
            "cannot read the call set '1-5/': a step or a kind of call expected at the end");
  EXPECT_EQ(error_of("7-"), "no error");
  EXPECT_EQ(error_of("7,-"),
            "cannot read the call set '7,-': a call number, '*' or a kind of call expected at "
            "'-'");
  EXPECT_EQ(error_of("frame/2"),
            "cannot read the call set 'frame/2': a call number, '*' or a kind of call expected "
            "at '/2'");
  EXPECT_EQ(error_of("99999999999999999999"),
            "cannot read the call set '99999999999999999999': call number too large at "
            "'99999999999999999999'");
  EXPECT_EQ(error_of("1 @f"),
            "cannot read the call set '1 @f': a call number, '*' or a kind of "
            "call expected at '@f'");
}

TEST(CallSet, SetsFromFiles) {
  RTRACE_NEEDS_FIXTURES();
  const test::ScratchDir scratch;
  const auto good = scratch / "calls.txt";
  test::write_file(good, "0-3\n20 46\r\n54,\t112\n\n");
  CallSet set = CallSet::parse("@" + good.string() + ",7");
  EXPECT_EQ(members(set, 200), (Numbers{0, 1, 2, 3, 7, 20, 46, 54, 112}));

  const auto bad = scratch / "bad.txt";
  test::write_file(bad, "1-3\n5 x7\n");
  EXPECT_EQ(error_of("@" + bad.string()),
            bad.string() +
                ":2: cannot read the call set: 'x' is not a kind of call (frame, "
                "draw, render, fbo, rendertarget)");
  EXPECT_EQ(error_of("@" + (scratch / "missing").string()),
            (scratch / "missing").string() + ": cannot read the call set file (--calls=@" +
                (scratch / "missing").string() + "): No such file or directory");
  EXPECT_EQ(error_of("@" + scratch.path().string()),
            scratch.path().string() + ": cannot read the call set file (--calls=@" +
                scratch.path().string() + "): it is a directory");
}

}  // namespace
}  // namespace rtrace::apitrace
