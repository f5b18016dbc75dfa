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

// Writes the decimal text of a number that is usually the one before plus one.
class CountingDecimal {
 public:
  // Writes kMaxDigits bytes at `out`, of which the digits are the first ones, up to the
  // returned end.
  char* write(char* out, std::uint64_t value) {
    if (length_ == 0 || value != next_) {
      length_ = static_cast<std::size_t>(write_decimal(digits_, value) - digits_);
    }
    // All kMaxDigits bytes: a copy of known size, no call.
    std::memcpy(out, digits_, kMaxDigits);
    char* const end = out + length_;
    prepare_next(value);
    return end;
  }

 private:
  // The next number's digits, made now rather than when it comes: the bytes written here are
  // in memory by then, while a copy right after them would wait for them (a wide load over
  // narrow stores just made cannot take its bytes from the stores).
  void prepare_next(std::uint64_t value) {
    next_ = value + 1;  // wraps after the largest number: then 0's digits are formatted anew
    if (next_ == 0 || !increment()) {
      length_ = 0;
    }
  }

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
  std::size_t length_ = 0;  // 0: digits_ holds no number
  std::uint64_t next_ = 0;  // the number digits_ holds when length_ != 0
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
