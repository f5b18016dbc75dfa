#include "formats/apitrace/call_set.h"

#include <charconv>
#include <limits>
#include <stdexcept>
#include <string>

namespace rtrace::apitrace {
namespace {

bool read_number(std::string_view& text, std::uint64_t& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end == text.data()) {
    return false;
  }
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  return true;
}

}  // namespace

// SET = ITEM (',' | ' ') ITEM ...; ITEM = '*' | N | N '-' [M], each optionally '/' STEP.
CallSet CallSet::parse(std::string_view text) {
  CallSet set;
  set.all_ = false;
  const std::string whole(text);
  const auto bad = [&] {
    return std::invalid_argument("cannot read the call set '" + whole + "'");
  };
  while (!text.empty()) {
    if (text.front() == ',' || text.front() == ' ') {
      text.remove_prefix(1);
      continue;
    }
    Range range{0, std::numeric_limits<std::uint64_t>::max(), 1};
    if (text.front() == '*') {
      text.remove_prefix(1);
    } else {
      if (!read_number(text, range.first)) {
        throw bad();
      }
      range.last = range.first;
      if (!text.empty() && text.front() == '-') {
        text.remove_prefix(1);
        range.last = std::numeric_limits<std::uint64_t>::max();
        if (!text.empty() && text.front() >= '0' && text.front() <= '9') {
          read_number(text, range.last);
        }
      }
    }
    if (!text.empty() && text.front() == '/') {
      text.remove_prefix(1);
      if (!read_number(text, range.step) || range.step == 0) {
        throw bad();
      }
    }
    if (!text.empty() && text.front() != ',' && text.front() != ' ') {
      throw bad();
    }
    set.ranges_.push_back(range);
  }
  return set;
}

bool CallSet::contains(std::uint64_t call_number) const {
  if (all_) {
    return true;
  }
  for (const Range& r : ranges_) {
    if (call_number >= r.first && call_number <= r.last && (call_number - r.first) % r.step == 0) {
      return true;
    }
  }
  return false;
}

}  // namespace rtrace::apitrace
