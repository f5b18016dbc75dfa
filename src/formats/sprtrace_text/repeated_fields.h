// Call-line fields that mostly repeat or count up from one line to the next, kept as text so that
// the next line copies or bumps them instead of formatting them again: the call index (the
// binary reader numbers calls 1, 2, 3...) and the timestamp (a busy program makes many calls in
// one millisecond: 128 per millisecond in the churn trace). Formatting both took a fifth of the
// call line's time, the timestamp's five divisions the most.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

#include "formats/sprtrace_text/text_numbers.h"

namespace rtrace::sprtrace_text {

// The decimal text of a number that is usually the one before plus one.
class CountingDecimal {
 public:
  std::string_view text(std::uint64_t value) {
    // (value - 1, not value_ + 1: the largest value plus one would wrap to 0.)
    if (length_ == 0 || value == 0 || value - 1 != value_ || !increment()) {
      length_ = static_cast<std::size_t>(write_decimal(digits_, value) - digits_);
    }
    value_ = value;
    return {digits_, length_};
  }

 private:
  // Adds one to the digits in place; false when a digit more is needed (999 + 1).
  bool increment() {
    for (char* p = digits_ + length_; p != digits_;) {
      --p;
      if (*p != '9') {
        ++*p;
        return true;
      }
      *p = '0';
    }
    return false;
  }

  char digits_[kMaxDigits] = {};
  std::size_t length_ = 0;  // 0: no text yet
  std::uint64_t value_ = 0;
};

// `[hh:mm:ss.mmm] ` of a time of day in milliseconds (under a day), formatted again only when
// the millisecond changes.
class MillisecondStamp {
 public:
  static constexpr std::size_t kLength = 15;

  // kLength characters.
  const char* text(std::uint32_t ms) {
    if (!valid_ || ms != ms_) {
      format(ms);
    }
    return text_;
  }

 private:
  void format(std::uint32_t ms) {
    char* p = text_;
    *p++ = '[';
    p = write_two_digits(p, ms / 3'600'000);
    *p++ = ':';
    p = write_two_digits(p, ms / 60'000 % 60);
    *p++ = ':';
    p = write_two_digits(p, ms / 1000 % 60);
    *p++ = '.';
    *p++ = static_cast<char>('0' + ms % 1000 / 100);
    p = write_two_digits(p, ms % 100);
    *p++ = ']';
    *p = ' ';
    ms_ = ms;
    valid_ = true;
  }

  char text_[kLength] = {};
  std::uint32_t ms_ = 0;
  bool valid_ = false;
};

}  // namespace rtrace::sprtrace_text
