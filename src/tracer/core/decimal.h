// Number formatting for the tracer, which cannot use the C library's formatting (it may
// allocate, and it is not async-signal-safe).
#pragma once

#include <cstdint>

namespace rtrace::tracer {

// Writes `value` in decimal at `out` (at most 20 characters, no NUL); returns the end.
inline char* write_decimal(char* out, std::uint64_t value) {
  char digits[20];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  while (n > 0) {
    *out++ = digits[--n];
  }
  return out;
}

// Writes `value` as `0x` and lower-case hex digits at `out` (at most 18 characters, no NUL);
// returns the end.
inline char* write_hex(char* out, std::uint64_t value) {
  char digits[16];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[value & 0xf];
    value >>= 4;
  } while (value != 0);
  *out++ = '0';
  *out++ = 'x';
  while (n > 0) {
    *out++ = digits[--n];
  }
  return out;
}

}  // namespace rtrace::tracer
