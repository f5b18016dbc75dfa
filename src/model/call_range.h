// A stretch of a trace chosen on the command line (--from T --to T): each end a time since the
// trace's first call or a call index, either end open.
//
// CallRangeSelector places the calls of a stream, in index order, before, inside or after the
// range, so that a consumer can count what happens inside it and still follow what was allocated
// before it (what is alive at the range's end). Both ends belong to the range.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/records.h"

namespace rtrace {

// One end of a range.
struct CallBound {
  enum class Unit : std::uint8_t { Nanoseconds, CallIndex };
  Unit unit = Unit::Nanoseconds;
  std::uint64_t value = 0;  // nanoseconds since the first call, or a call index

  friend bool operator==(const CallBound&, const CallBound&) = default;
};

// Reads one end as the command line writes it: a time since the trace's first call in seconds
// ("2", "2.5", "2.5s") or with a unit ("300ms", "40us", "100ns"), or a call index after '@'
// ("@1200"). Throws std::invalid_argument saying what is wrong.
CallBound parse_call_bound(std::string_view text);
// "2.5 s", "300 ms", "call 1200": how messages and outputs show an end.
std::string describe_call_bound(const CallBound& bound);

struct CallRange {
  std::optional<CallBound> from{};
  std::optional<CallBound> to{};

  // No end given: the whole trace.
  bool whole() const { return !from && !to; }
  // "from 2.5 s to call 1200", "from call 10", "to 3 s"; "" for the whole trace.
  std::string describe() const;
  // Throws std::invalid_argument when both ends are in one unit and `to` comes before `from`.
  void check() const;
};

enum class RangePosition : std::uint8_t { Before, Inside, After };

// Places calls against a range. Times count from the first call that has a timestamp; a call
// without one (formats without a clock) takes the time of the call before it.
class CallRangeSelector {
 public:
  explicit CallRangeSelector(CallRange range) : range_(range) {}

  // Call in index order.
  RangePosition place(const Call& call);

 private:
  // Where `call` stands against `bound`: negative before it, 0 on it, positive after it.
  int compare(const Call& call, std::uint64_t since_start_ns, const CallBound& bound) const;

  CallRange range_;
  bool timed_ = false;
  std::uint64_t first_ns_ = 0;
  std::uint64_t last_ns_ = 0;
};

}  // namespace rtrace
