#include "model/call_range.h"

#include <cmath>
#include <stdexcept>

namespace rtrace {
namespace {

struct TimeUnit {
  std::string_view suffix;
  double nanoseconds;
};
// Longest suffixes first: "ms" must not be read as "m" then "s".
constexpr TimeUnit kTimeUnits[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};

std::invalid_argument bad_bound(std::string_view text, std::string_view why) {
  return std::invalid_argument("'" + std::string(text) + "': " + std::string(why) +
                               " (seconds such as 2.5 or 2.5s, 300ms, 40us, 100ns, or a call "
                               "index such as @1200)");
}

bool all_digits(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

std::uint64_t parse_index(std::string_view text, std::string_view digits) {
  if (!all_digits(digits) || digits.size() > 19) {
    throw bad_bound(text, "not a call index");
  }
  return std::stoull(std::string(digits));
}

// "2", "2.5", ".5": a plain decimal number (no sign, no exponent, nothing after it).
std::optional<double> parse_decimal(std::string_view number) {
  const std::size_t dot = number.find('.');
  const std::string_view whole = number.substr(0, dot);
  const std::string_view fraction =
      dot == std::string_view::npos ? std::string_view() : number.substr(dot + 1);
  if ((whole.empty() && fraction.empty()) || (!whole.empty() && !all_digits(whole)) ||
      (!fraction.empty() && !all_digits(fraction)) || whole.size() > 12) {
    return std::nullopt;
  }
  return std::stod(std::string(whole.empty() ? "0" : whole) + "." +
                   std::string(fraction.empty() ? "0" : fraction));
}

}  // namespace

CallBound parse_call_bound(std::string_view text) {
  if (text.starts_with('@')) {
    return {.unit = CallBound::Unit::CallIndex, .value = parse_index(text, text.substr(1))};
  }
  std::string_view number = text;
  double scale = 1e9;
  for (const TimeUnit& unit : kTimeUnits) {
    if (number.ends_with(unit.suffix)) {
      number.remove_suffix(unit.suffix.size());
      scale = unit.nanoseconds;
      break;
    }
  }
  const std::optional<double> value = parse_decimal(number);
  if (!value) {
    throw bad_bound(text, "not a time since the start nor a call index");
  }
  return {.unit = CallBound::Unit::Nanoseconds,
          .value = static_cast<std::uint64_t>(std::llround(*value * scale))};
}

std::string describe_call_bound(const CallBound& bound) {
  if (bound.unit == CallBound::Unit::CallIndex) {
    return "call " + std::to_string(bound.value);
  }
  // The shortest of s, ms, us, ns that shows the value exactly.
  for (auto unit = std::rbegin(kTimeUnits); unit != std::rend(kTimeUnits); ++unit) {
    const auto per_unit = static_cast<std::uint64_t>(unit->nanoseconds);
    if (bound.value % per_unit == 0 || per_unit == 1) {
      return std::to_string(bound.value / per_unit) + " " + std::string(unit->suffix);
    }
  }
  return std::to_string(bound.value) + " ns";
}

std::string CallRange::describe() const {
  std::string text;
  if (from) {
    text = "from " + describe_call_bound(*from);
  }
  if (to) {
    text += (text.empty() ? "to " : " to ") + describe_call_bound(*to);
  }
  return text;
}

void CallRange::check() const {
  if (from && to && from->unit == to->unit && to->value < from->value) {
    throw std::invalid_argument("the range ends (" + describe_call_bound(*to) +
                                ") before it starts (" + describe_call_bound(*from) + ")");
  }
}

int CallRangeSelector::compare(const Call& call, std::uint64_t since_start_ns,
                               const CallBound& bound) const {
  const std::uint64_t position =
      bound.unit == CallBound::Unit::CallIndex ? call.index : since_start_ns;
  return position < bound.value ? -1 : (position == bound.value ? 0 : 1);
}

RangePosition CallRangeSelector::place(const Call& call) {
  if (call.timestamp_ns != 0) {
    if (!timed_) {
      timed_ = true;
      first_ns_ = call.timestamp_ns;
    }
    last_ns_ = call.timestamp_ns;
  }
  // A clock that steps back (another thread's earlier stamp) counts as the start.
  const std::uint64_t since_start = last_ns_ > first_ns_ ? last_ns_ - first_ns_ : 0;
  if (range_.from && compare(call, since_start, *range_.from) < 0) {
    return RangePosition::Before;
  }
  if (range_.to && compare(call, since_start, *range_.to) > 0) {
    return RangePosition::After;
  }
  return RangePosition::Inside;
}

}  // namespace rtrace
