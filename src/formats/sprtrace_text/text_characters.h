// Telling text from binary data quickly: every line of a text trace is checked.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace rtrace::sprtrace_text {

// A control character other than TAB in `bytes` (scalar; for a handful of bytes).
inline bool has_control_character_scalar(const char* bytes, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i) {
    const auto byte = static_cast<unsigned char>(bytes[i]);
    if (byte < 0x20 && byte != '\t') {
      return true;
    }
  }
  return false;
}

// The same, eight bytes at a time: a word with no byte below 0x20 is skipped with one test; only
// words that hold one (in practice the TAB that starts backtrace lines) are looked at bytewise.
inline bool has_control_character(std::string_view line) {
  constexpr std::uint64_t kSpaces = 0x2020202020202020;
  constexpr std::uint64_t kHighBits = 0x8080808080808080;
  const char* p = line.data();
  std::size_t left = line.size();
  for (; left >= 8; p += 8, left -= 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, p, 8);
    if (((word - kSpaces) & ~word & kHighBits) != 0 && has_control_character_scalar(p, 8)) {
      return true;
    }
  }
  return has_control_character_scalar(p, left);
}

}  // namespace rtrace::sprtrace_text
