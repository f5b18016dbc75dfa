// Byte strings for the protocol tests: the original tracer's traces (fixtures/sp-rtrace), the
// same traces with every packet header in the other byte order, and hand-made packet headers.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "protocol/sprtrace_framing.h"
#include "protocol/sprtrace_handshake.h"
#include "support/test_paths.h"

namespace rtrace::sprtrace::test {

using Bytes = std::vector<std::uint8_t>;

// The raw traces the original sp-rtrace tracer wrote (protocol 2.0, x86-64, little-endian).
inline const char* const kFixtureTraces[] = {
    "sp-rtrace/memory/memory.raw",
    "sp-rtrace/fd/fd.raw",
    "sp-rtrace/shmsysv/shmsysv.raw",
    "sp-rtrace/context/context.raw",
};

inline Bytes fixture_bytes(const char* relative) {
  const std::string text = rtrace::test::read_file(rtrace::test::fixture(relative));
  return {text.begin(), text.end()};
}

// A packet as the walk below finds it.
struct WalkedPacket {
  std::uint64_t offset = 0;
  std::uint32_t type = 0;
  std::uint64_t total = 0;
  bool operator==(const WalkedPacket&) const = default;
};

// Every packet after the handshake, parsed one after the other as a reader does. Stops at the
// first packet that is not Complete, which `last` receives.
inline std::vector<WalkedPacket> walk(std::span<const std::uint8_t> trace, PacketFrame& last) {
  const HandshakeParse handshake = parse_handshake(trace);
  std::vector<WalkedPacket> packets;
  if (handshake.status != ParseStatus::Complete) {
    last = {};
    return packets;
  }
  const Layout layout = layout_of(handshake.handshake);
  std::uint64_t at = handshake.size;
  for (;;) {
    last = parse_packet(trace.subspan(at), layout, at, kMaxPacketSize);
    if (last.status != ParseStatus::Complete) {
      return packets;
    }
    packets.push_back({.offset = at, .type = last.type, .total = last.total});
    at += last.total;
  }
}

inline void put_u32(std::uint8_t* at, std::uint32_t value, bool big_endian) {
  for (int i = 0; i < 4; ++i) {
    const int shift = big_endian ? 24 - 8 * i : 8 * i;
    at[i] = static_cast<std::uint8_t>(value >> shift);
  }
}

// `trace` (a little-endian 2.0 trace) with its handshake saying big-endian and every packet
// header's type and size stored most significant byte first, as a big-endian tracer writes
// them (the packets' data are left as they are: the framing does not look into them).
inline Bytes to_big_endian(const Bytes& trace) {
  Bytes swapped = trace;
  const HandshakeParse handshake = parse_handshake(trace);
  swapped[5 + handshake.handshake.arch.size()] = 1;
  const Layout little = layout_of(handshake.handshake);
  for (std::uint64_t at = handshake.size; at < trace.size();) {
    const PacketFrame frame =
        parse_packet(std::span(trace).subspan(at), little, at, kMaxPacketSize);
    if (frame.status != ParseStatus::Complete) {
      break;
    }
    put_u32(&swapped[at], frame.type, true);
    put_u32(&swapped[at + 4], static_cast<std::uint32_t>(frame.data_size), true);
    at += frame.total;
  }
  return swapped;
}

// A handshake of protocol `major`.`minor` for "x86_64" in the byte order given, 8-byte pointers.
inline Bytes handshake_bytes(std::uint8_t major, std::uint8_t minor, bool big_endian,
                             std::uint8_t pointer_size = 8) {
  Bytes out(kMaxHandshakeSize);
  const Handshake handshake{.major = major,
                            .minor = minor,
                            .arch = "x86_64",
                            .big_endian = big_endian,
                            .pointer_size = pointer_size};
  out.resize(write_handshake(handshake, reinterpret_cast<char*>(out.data())));
  return out;
}

// A packet header: [type][size] (type_first) or [size][type], in the byte order given.
inline Bytes header_bytes(std::uint32_t type, std::uint32_t size, bool big_endian,
                          bool type_first = true) {
  Bytes out(kPacketHeaderSize);
  put_u32(&out[type_first ? 0 : 4], type, big_endian);
  put_u32(&out[type_first ? 4 : 0], size, big_endian);
  return out;
}

}  // namespace rtrace::sprtrace::test
