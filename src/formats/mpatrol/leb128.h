// Unsigned LEB128 numbers, the encoding of every number in an mpatrol tracing file's records:
// 7 bits per byte, lowest group first, the top bit set on every byte but the last.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace rtrace::mpatrol {

// A 64-bit value takes at most 10 bytes.
inline constexpr std::size_t kMaxLeb128Bytes = 10;

enum class LebStatus : std::uint8_t { Ok, Incomplete, TooLong };

// Decodes the number at `p` (not reading at or past `end`); on Ok advances `p`. TooLong: more
// than 10 bytes, or bits beyond the 64th.
inline LebStatus decode_uleb128(const std::uint8_t*& p, const std::uint8_t* end,
                                std::uint64_t& value) {
  std::uint64_t result = 0;
  const std::uint8_t* q = p;
  for (unsigned shift = 0;; shift += 7) {
    if (q == end) {
      return LebStatus::Incomplete;
    }
    const std::uint8_t byte = *q++;
    const std::uint64_t group = byte & 0x7FU;
    if (shift == 63 && group > 1) {
      return LebStatus::TooLong;
    }
    result |= group << shift;  // 64-bit shift: values of 2^31 and more stay right
    if ((byte & 0x80U) == 0) {
      break;
    }
    if (shift == 63) {
      return LebStatus::TooLong;
    }
  }
  value = result;
  p = q;
  return LebStatus::Ok;
}

inline void append_uleb128(std::string& out, std::uint64_t value) {
  do {
    auto byte = static_cast<std::uint8_t>(value & 0x7FU);
    value >>= 7;
    if (value != 0) {
      byte |= 0x80U;
    }
    out.push_back(static_cast<char>(byte));
  } while (value != 0);
}

}  // namespace rtrace::mpatrol
