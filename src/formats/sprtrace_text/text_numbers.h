// Number formatting and parsing for the text protocol's hot lines (call and backtrace lines).
//
// The writer formats millions of numbers per second straight into its output buffer, so the
// formatters write into a caller-provided char array and return the end; the caller has made
// room for kMaxDigits characters. The parsers accept exactly the digits of one field (no sign, no
// spaces, no prefix) and fail on overflow, so a damaged number is never silently truncated.
#pragma once

#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <string_view>
#include <system_error>

namespace rtrace::sprtrace_text {

// Digits of the longest 64-bit number in decimal (hex needs 16).
inline constexpr std::size_t kMaxDigits = 20;

inline char* write_hex(char* out, std::uint64_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  const int digits = value == 0 ? 1 : (64 - std::countl_zero(value) + 3) / 4;
  char* end = out + digits;
  for (char* p = end; p != out; value >>= 4) {
    *--p = kDigits[value & 0xf];
  }
  return end;
}

inline char* write_decimal(char* out, std::uint64_t value) {
  char digits[kMaxDigits];
  char* p = digits + kMaxDigits;
  do {
    *--p = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  const std::size_t n = static_cast<std::size_t>(digits + kMaxDigits - p);
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = p[i];
  }
  return out + n;
}

// Two digits, zero-padded (timestamps).
inline char* write_two_digits(char* out, unsigned value) {
  out[0] = static_cast<char>('0' + value / 10 % 10);
  out[1] = static_cast<char>('0' + value % 10);
  return out + 2;
}

// Parses all of `text` as an unsigned number in `base`; false when empty, not all digits, or too
// big for T.
template <typename T>
bool parse_number(std::string_view text, T& value, int base) {
  if (text.empty()) {
    return false;
  }
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value, base);
  return ec == std::errc() && ptr == end;
}

template <typename T>
bool parse_hex(std::string_view text, T& value) {
  return parse_number(text, value, 16);
}

template <typename T>
bool parse_decimal(std::string_view text, T& value) {
  return parse_number(text, value, 10);
}

// Reads the run of hex digits at the start of `text` in one pass (the backtrace lines' hot path).
// Returns how many digits were read; 0 when there are none or the value does not fit 64 bits.
inline std::size_t read_hex_prefix(std::string_view text, std::uint64_t& value) {
  static constexpr auto kValues = [] {
    std::array<std::uint8_t, 256> values{};
    values.fill(0xff);
    for (int c = 0; c < 10; ++c) {
      values['0' + c] = static_cast<std::uint8_t>(c);
    }
    for (int c = 0; c < 6; ++c) {
      values['a' + c] = static_cast<std::uint8_t>(10 + c);
      values['A' + c] = static_cast<std::uint8_t>(10 + c);
    }
    return values;
  }();
  std::uint64_t result = 0;
  std::size_t n = 0;
  for (; n < text.size(); ++n) {
    const std::uint8_t digit = kValues[static_cast<unsigned char>(text[n])];
    if (digit == 0xff) {
      break;
    }
    if (result >> 60 != 0) {
      return 0;
    }
    result = result << 4 | digit;
  }
  value = result;
  return n;
}

// Length of the run of hex digits at the start of `text`.
inline std::size_t hex_digit_run(std::string_view text) {
  std::size_t n = 0;
  while (n < text.size()) {
    const char c = text[n];
    const bool digit = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (!digit) {
      break;
    }
    ++n;
  }
  return n;
}

inline std::size_t decimal_digit_run(std::string_view text) {
  std::size_t n = 0;
  while (n < text.size() && text[n] >= '0' && text[n] <= '9') {
    ++n;
  }
  return n;
}

}  // namespace rtrace::sprtrace_text
