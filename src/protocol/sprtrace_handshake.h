// The sp-rtrace handshake, the first bytes of every binary trace and of every stream a tracer
// sends the recorder: which protocol version, architecture, byte order and pointer size the
// packets after it use.
//
//   [0xF0][size:1][major:1][minor:1][arch length:1][arch][byte order:1][pointer size:1] padding
//
// `size` counts everything after itself, the padding to 4 bytes included; byte order 0 is
// little-endian, 1 big-endian. The handshake itself has no byte order.
// Header-only and free of allocation, so that the tracer can use it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "protocol/parse_result.h"
#include "protocol/sprtrace_packets.h"

namespace rtrace::sprtrace {

// The longest handshake: its size field is one byte.
inline constexpr std::size_t kMaxHandshakeSize = 2 + 0xFF;
// The longest architecture name a handshake holds (with its fields and padding in 0xFF bytes).
inline constexpr std::size_t kMaxArchLength = 0xFF - 5 - 3;

struct Handshake {
  std::uint8_t major = kWrittenMajor;
  std::uint8_t minor = kWrittenMinor;
  std::string_view arch;  // parsed: a view of the handshake's bytes
  bool big_endian = false;
  std::uint8_t pointer_size = 8;
};

// What parse_handshake() found. Complete: `handshake`, and `size` the bytes it occupies.
// NeedMore: `size` is how many bytes the handshake needs. Invalid: `problem` (at offset 0).
struct HandshakeParse {
  ParseStatus status = ParseStatus::NeedMore;
  std::size_t size = 0;
  Handshake handshake;
  ParseProblem problem;
};

// The handshake at the front of `bytes` (what the stream has so far; 2 bytes tell the whole
// size). Checks, in this order: the first byte, the bytes there are, room for the fields, then a
// version this reader reads (1.0 to kWrittenMajor.kWrittenMinor), byte order and pointer size
// (4 or 8).
inline HandshakeParse parse_handshake(std::span<const std::uint8_t> bytes) {
  HandshakeParse parse;
  const auto invalid = [&parse](Problem what, std::uint64_t first = 0, std::uint64_t second = 0) {
    parse.status = ParseStatus::Invalid;
    parse.problem = {.what = what, .offset = 0, .first = first, .second = second};
    return parse;
  };
  if (!bytes.empty() && bytes[0] != kHandshakeId) {
    return invalid(Problem::NotAHandshake);
  }
  if (bytes.size() < 2) {
    parse.size = 2;
    return parse;
  }
  const std::size_t total = 2 + std::size_t{bytes[1]};
  if (bytes.size() < total) {
    parse.size = total;
    return parse;
  }
  // major, minor, arch length, then after the arch byte order and pointer size.
  if (total < 5 || 5 + std::size_t{bytes[4]} + 2 > total) {
    return invalid(Problem::HandshakeTooShort);
  }
  const std::size_t arch_length = bytes[4];
  const std::uint8_t major = bytes[2];
  const std::uint8_t minor = bytes[3];
  const std::uint8_t order = bytes[5 + arch_length];
  const std::uint8_t pointer_size = bytes[6 + arch_length];
  if (major == 0 || major > kWrittenMajor || (major == kWrittenMajor && minor > kWrittenMinor)) {
    return invalid(Problem::UnsupportedVersion, major, minor);
  }
  if (order > 1) {
    return invalid(Problem::UnknownByteOrder, order);
  }
  if (pointer_size != 4 && pointer_size != 8) {
    return invalid(Problem::UnsupportedPointerSize, pointer_size);
  }
  parse.status = ParseStatus::Complete;
  parse.size = total;
  parse.handshake = {
      .major = major,
      .minor = minor,
      .arch = {reinterpret_cast<const char*>(bytes.data() + 5), arch_length},
      .big_endian = order == 1,
      .pointer_size = pointer_size,
  };
  return parse;
}

// Writes `handshake` (its architecture cut to kMaxArchLength bytes) to `out`, which has room for
// handshake_size(kMaxArchLength) bytes or at least handshake_size(arch length); returns the bytes
// written.
// (No string_view::substr: it may throw, and the tracer has no C++ runtime to throw with.)
inline std::size_t write_handshake(const Handshake& handshake, char* out) {
  const std::string_view arch(handshake.arch.data(),
                              std::min(handshake.arch.size(), kMaxArchLength));
  const std::size_t total = handshake_size(arch.size());
  std::memset(out, 0, total);
  out[0] = static_cast<char>(kHandshakeId);
  out[1] = static_cast<char>(total - 2);
  out[2] = static_cast<char>(handshake.major);
  out[3] = static_cast<char>(handshake.minor);
  out[4] = static_cast<char>(arch.size());
  if (!arch.empty()) {
    std::memcpy(out + 5, arch.data(), arch.size());
  }
  out[5 + arch.size()] = static_cast<char>(handshake.big_endian ? 1 : 0);
  out[6 + arch.size()] = static_cast<char>(handshake.pointer_size);
  return total;
}

}  // namespace rtrace::sprtrace
