// The byte loops the memtransfer module runs before it knows the real functions
// (src/tracer/modules/memtransfer/transfer_fallback.h): they must do what memcpy, memmove, memset,
// strlen, strnlen and wcslen do, overlapping moves in both directions included.
#include "tracer/modules/memtransfer/transfer_fallback.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace rtrace::tracer {
namespace {

TEST(TransferFallback, CopyAndFillWriteExactlyTheirBytes) {
  char buffer[16];
  std::memset(buffer, '.', sizeof buffer);
  EXPECT_EQ(fallback_copy(buffer + 2, "abcdef", 6), buffer + 2);
  EXPECT_EQ(fallback_fill(buffer + 10, 'z', 3), buffer + 10);
  EXPECT_EQ(std::string(buffer, sizeof buffer), "..abcdef..zzz...");
}

TEST(TransferFallback, MovesOverlappingRangesBothWays) {
  char forward[] = "0123456789";
  fallback_move(forward + 2, forward, 6);
  EXPECT_STREQ(forward, "0101234589");
  char backward[] = "0123456789";
  fallback_move(backward, backward + 3, 6);
  EXPECT_STREQ(backward, "3456786789");
}

TEST(TransferFallback, LengthsStopAtTheTerminatorOrTheLimit) {
  EXPECT_EQ(fallback_length(""), 0U);
  EXPECT_EQ(fallback_length("hello"), 5U);
  EXPECT_EQ(fallback_bounded_length("hello", 3), 3U);
  EXPECT_EQ(fallback_bounded_length("hi", 10), 2U);
  EXPECT_EQ(fallback_wide_length(L"wide"), 4U);
}

}  // namespace
}  // namespace rtrace::tracer
