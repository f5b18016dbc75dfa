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

// Whether a word holds a byte below 0x20 (exact as a whole; which byte is not told).
template <typename Word>
inline bool has_byte_below_space(Word word) {
  constexpr Word kSpaces = static_cast<Word>(0x2020202020202020);
  constexpr Word kHighBits = static_cast<Word>(0x8080808080808080);
  return ((word - kSpaces) & ~word & kHighBits) != 0;
}

template <typename Word>
inline Word load_word(const char* bytes) {
  Word word;
  std::memcpy(&word, bytes, sizeof word);
  return word;
}

// The same, eight bytes at a time: a word with no byte below 0x20 is skipped with one test; only
// words that hold one (in practice the TAB that starts backtrace lines) are looked at bytewise.
// The bytes after the last whole word are tested as the string's last word (overlapping bytes
// already found clean), and a string of 4 to 7 bytes (a call's function name) as its first and
// last four: no loop over the bytes of the usual short or clean string.
inline bool has_control_character(std::string_view line) {
  const char* p = line.data();
  const std::size_t size = line.size();
  if (size < 8) {
    if (size < 4) {
      return has_control_character_scalar(p, size);
    }
    return (has_byte_below_space(load_word<std::uint32_t>(p)) ||
            has_byte_below_space(load_word<std::uint32_t>(p + size - 4))) &&
           has_control_character_scalar(p, size);
  }
  std::size_t left = size;
  for (; left >= 8; p += 8, left -= 8) {
    if (has_byte_below_space(load_word<std::uint64_t>(p)) && has_control_character_scalar(p, 8)) {
      return true;
    }
  }
  if (left == 0) {
    return false;
  }
  const char* last = line.data() + size - 8;
  return has_byte_below_space(load_word<std::uint64_t>(last)) &&
         has_control_character_scalar(last, 8);
}

}  // namespace rtrace::sprtrace_text
