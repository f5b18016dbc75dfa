// Loads of 16-, 32- and 64-bit values from unaligned bytes, swapped when the data's byte order is
// not the machine's. Header-only and free of allocation, so that the tracer can use it.
#pragma once

#include <cstdint>
#include <cstring>

namespace rtrace::sprtrace {

inline std::uint16_t load_u16(const std::uint8_t* p, bool swap) {
  std::uint16_t v = 0;
  std::memcpy(&v, p, sizeof v);
  return swap ? static_cast<std::uint16_t>((v >> 8) | (v << 8)) : v;
}

inline std::uint32_t load_u32(const std::uint8_t* p, bool swap) {
  std::uint32_t v = 0;
  std::memcpy(&v, p, sizeof v);
  return swap ? __builtin_bswap32(v) : v;
}

inline std::uint64_t load_u64(const std::uint8_t* p, bool swap) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, sizeof v);
  return swap ? __builtin_bswap64(v) : v;
}

}  // namespace rtrace::sprtrace
