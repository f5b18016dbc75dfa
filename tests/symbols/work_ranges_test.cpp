#include "symbols/work_ranges.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <thread>
#include <vector>

namespace rtrace::symbols {
namespace {

std::vector<std::size_t> take_all(WorkRanges& work, std::size_t thread) {
  std::vector<std::size_t> taken;
  while (const std::optional<std::size_t> piece = work.next(thread)) {
    taken.push_back(*piece);
  }
  return taken;
}

TEST(WorkRanges, EachThreadStartsOnItsOwnRangeInOrder) {
  WorkRanges work({0, 6}, 10);
  EXPECT_EQ(work.next(0), 0U);
  EXPECT_EQ(work.next(1), 6U);
  EXPECT_EQ(work.next(0), 1U);
  EXPECT_EQ(work.next(1), 7U);
}

TEST(WorkRanges, AThreadDoneTakesTheBackHalfOfTheLargestRangeLeft) {
  WorkRanges work({0, 2, 4}, 12);  // [0, 2), [2, 4), [4, 12)
  EXPECT_EQ(work.next(0), 0U);
  EXPECT_EQ(work.next(0), 1U);
  EXPECT_EQ(work.next(0), 8U);  // [8, 12) of thread 2's [4, 12)
  EXPECT_EQ(work.next(2), 4U);  // thread 2 goes on from the front of [4, 8)
  EXPECT_EQ(work.next(0), 9U);
}

TEST(WorkRanges, OneThreadAloneTakesEveryPiece) {
  WorkRanges work({0, 2, 4}, 12);
  // Its own, then halves of the largest left (the first of equal ones), down to single pieces.
  EXPECT_EQ(take_all(work, 0), (std::vector<std::size_t>{0, 1, 8, 9, 10, 11, 6, 7, 3, 5, 2, 4}));
  EXPECT_EQ(work.next(1), std::nullopt);
  EXPECT_EQ(work.next(2), std::nullopt);
}

TEST(WorkRanges, EveryPieceGoesOutOnceAcrossThreads) {
  constexpr std::size_t kPieces = 10000;
  constexpr std::size_t kThreads = 4;
  WorkRanges work({0, 100, 200, 9000}, kPieces);
  std::vector<std::vector<std::size_t>> taken(kThreads);
  std::vector<std::thread> threads;
  for (std::size_t thread = 0; thread < kThreads; ++thread) {
    threads.emplace_back([&, thread] { taken[thread] = take_all(work, thread); });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  std::vector<std::size_t> all;
  for (const std::vector<std::size_t>& pieces : taken) {
    all.insert(all.end(), pieces.begin(), pieces.end());
  }
  std::sort(all.begin(), all.end());
  std::vector<std::size_t> expected(kPieces);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(all, expected);
}

TEST(WorkRanges, NoPiecesNothingToTake) {
  WorkRanges work({0, 0}, 0);
  EXPECT_EQ(work.next(0), std::nullopt);
  EXPECT_EQ(work.next(1), std::nullopt);
}

TEST(WorkRanges, AThreadNeverStartedLeavesItsRangeToTheOthers) {
  WorkRanges work({0, 3}, 6);
  EXPECT_EQ(take_all(work, 0), (std::vector<std::size_t>{0, 1, 2, 4, 5, 3}));
}

}  // namespace
}  // namespace rtrace::symbols
