// printf-style columns for mptrace's tables, appended straight to an output buffer: a verbose
// listing of a large trace prints millions of rows, so this avoids a format-string parse per field.
#pragma once

#include <cstdint>
#include <string>

namespace rtrace::mpatrol {

// printf("%*lu", width, value): right-aligned in `width` columns, wider when it must be.
inline void append_decimal(std::string& out, std::uint64_t value, std::size_t width = 0) {
  char digits[20];
  char* p = digits + sizeof digits;
  do {
    *--p = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  const auto length = static_cast<std::size_t>(digits + sizeof digits - p);
  if (length < width) {
    out.append(width - length, ' ');
  }
  out.append(p, length);
}

// printf("0x%016lX", value).
inline void append_hex16_upper(std::string& out, std::uint64_t value) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  char text[18] = {'0', 'x'};
  for (int i = 17; i >= 2; --i, value >>= 4) {
    text[i] = kDigits[value & 0xFU];
  }
  out.append(text, sizeof text);
}

// printf("0x%lx", value).
inline void append_hex_lower(std::string& out, std::uint64_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  char digits[16];
  char* p = digits + sizeof digits;
  do {
    *--p = kDigits[value & 0xFU];
    value >>= 4;
  } while (value != 0);
  out.append("0x");
  out.append(p, static_cast<std::size_t>(digits + sizeof digits - p));
}

}  // namespace rtrace::mpatrol
