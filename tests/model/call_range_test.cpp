// --from/--to's ends and the placing of calls against a range.
#include "model/call_range.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace rtrace {
namespace {

constexpr auto kNs = CallBound::Unit::Nanoseconds;
constexpr auto kIndex = CallBound::Unit::CallIndex;

TEST(CallRange, ReadsTimesInEveryUnitAndCallIndices) {
  EXPECT_EQ(parse_call_bound("2"), (CallBound{kNs, 2'000'000'000}));
  EXPECT_EQ(parse_call_bound("2.5"), (CallBound{kNs, 2'500'000'000}));
  EXPECT_EQ(parse_call_bound("2.5s"), (CallBound{kNs, 2'500'000'000}));
  EXPECT_EQ(parse_call_bound(".5s"), (CallBound{kNs, 500'000'000}));
  EXPECT_EQ(parse_call_bound("300ms"), (CallBound{kNs, 300'000'000}));
  EXPECT_EQ(parse_call_bound("40us"), (CallBound{kNs, 40'000}));
  EXPECT_EQ(parse_call_bound("100ns"), (CallBound{kNs, 100}));
  EXPECT_EQ(parse_call_bound("@1200"), (CallBound{kIndex, 1200}));
  for (const char* bad : {"", "s", "@", "@-1", "@1.5", "-2", "2x", "1e3", "2..5", "2.5.1s", "ms"}) {
    EXPECT_THROW(parse_call_bound(bad), std::invalid_argument) << bad;
  }
}

TEST(CallRange, DescribesItsEndsAndRefusesABackwardRange) {
  EXPECT_EQ((CallRange{parse_call_bound("2.5"), parse_call_bound("@30")}).describe(),
            "from 2500 ms to call 30");
  EXPECT_EQ((CallRange{std::nullopt, parse_call_bound("3")}).describe(), "to 3 s");
  EXPECT_EQ(CallRange{}.describe(), "");
  EXPECT_THROW((CallRange{parse_call_bound("2"), parse_call_bound("1")}).check(),
               std::invalid_argument);
  // Ends in different units cannot be compared before the trace is read.
  EXPECT_NO_THROW((CallRange{parse_call_bound("@20"), parse_call_bound("1")}).check());
}

// Times count from the first call with a timestamp; a call without one keeps the last time.
TEST(CallRange, PlacesCallsByTimeSinceTheFirstCallOrByIndex) {
  CallRangeSelector by_time({parse_call_bound("1s"), parse_call_bound("2s")});
  const auto at = [](std::uint64_t index, std::uint64_t ns) {
    return Call{.index = index, .timestamp_ns = ns};
  };
  EXPECT_EQ(by_time.place(at(1, 5'000'000'000)), RangePosition::Before);
  EXPECT_EQ(by_time.place(at(2, 6'000'000'000)), RangePosition::Inside);  // both ends belong
  EXPECT_EQ(by_time.place(at(3, 0)), RangePosition::Inside);
  EXPECT_EQ(by_time.place(at(4, 7'000'000'000)), RangePosition::Inside);
  EXPECT_EQ(by_time.place(at(5, 7'000'000'001)), RangePosition::After);
  CallRangeSelector by_index({parse_call_bound("@2"), parse_call_bound("@3")});
  EXPECT_EQ(by_index.place(at(1, 0)), RangePosition::Before);
  EXPECT_EQ(by_index.place(at(2, 0)), RangePosition::Inside);
  EXPECT_EQ(by_index.place(at(3, 0)), RangePosition::Inside);
  EXPECT_EQ(by_index.place(at(4, 0)), RangePosition::After);
}

}  // namespace
}  // namespace rtrace
