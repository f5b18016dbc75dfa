// Packet headers of the sp-rtrace binary protocol: where each packet after the handshake starts,
// what type it is and how long it is, in the byte order and protocol version the handshake
// declared.
//
//   from 2.0:   [type:4][size:4][data:size]
//   before 2.0: [size:4][type:4][data:size - 4]  (the 1.x tracer counted the type field)
//
// A packet type is four ASCII letters stored as a 32-bit value in the writer's byte order
// (sprtrace_packets.h); a big-endian writer that spelled the letters as bytes instead is
// understood too. Every size is checked against a limit and against what is left before it is
// used, so hostile input can make a caller neither read past its bytes nor wait for gigabytes.
// Header-only and free of allocation, so that the tracer can use it.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

#include "protocol/byte_loads.h"
#include "protocol/parse_result.h"
#include "protocol/sprtrace_handshake.h"
#include "protocol/sprtrace_packets.h"

namespace rtrace::sprtrace {

// The largest packet, header included, that rtrace's readers accept: no tracer writes one near
// it (the longest, an ARGS packet, holds a few 64 KiB strings), and a reader holds a whole packet.
inline constexpr std::uint64_t kMaxPacketSize = std::uint64_t{64} << 20;

// How the packets after a handshake store their numbers and headers.
struct Layout {
  bool swap = false;  // the trace's byte order is not the machine's
  std::uint8_t pointer_size = 8;
  bool big_endian = false;  // the trace's byte order
  bool type_first = true;   // [type][size] headers (2.0), else [size][type]
};

inline constexpr bool kBigEndianMachine = std::endian::native == std::endian::big;

constexpr Layout layout_of(const Handshake& handshake) {
  return {.swap = handshake.big_endian != kBigEndianMachine,
          .pointer_size = handshake.pointer_size,
          .big_endian = handshake.big_endian,
          .type_first = handshake.major >= kTypeFirstMajor};
}

// The layout of the usual trace: 2.0, this machine's byte order, 8-byte pointers. A caller that
// has checked a trace is so passes this constant, and the header parse below folds to two loads.
inline constexpr Layout kNativeLayout = {
    .swap = false, .pointer_size = 8, .big_endian = kBigEndianMachine, .type_first = true};

// A type as the packet types of sprtrace_packets.h spell it: a big-endian trace whose writer
// stored the letters as bytes ("CALL" rather than "LLAC") reads as the same types.
constexpr std::uint32_t canonical_type(std::uint32_t type, const Layout& layout) {
  if (!layout.big_endian || is_known_packet_type(type)) {
    return type;
  }
  const std::uint32_t swapped = __builtin_bswap32(type);
  return is_known_packet_type(swapped) ? swapped : type;
}

// What parse_packet_header() and parse_packet() found. Complete: the packet's `type`, the bytes
// of its `data` and its `total` length, header included. NeedMore: `total` bytes are needed (8
// for the header, or the whole packet). Invalid: `problem`. NextTrace: a handshake starts here.
struct PacketFrame {
  ParseStatus status = ParseStatus::NeedMore;
  std::uint32_t type = 0;
  std::uint64_t data_size = 0;
  std::uint64_t total = kPacketHeaderSize;
  ParseProblem problem;
};

// The header at the front of `bytes`, which start at byte `offset` of the input (for problems).
// A packet longer than `max_total` (header included) is Invalid, as is a 1.x size field smaller
// than the type field it counts. A byte kHandshakeId where a header starts is a second trace
// when the layout says so (no 2.0 type begins with it; before 2.0 the size comes first and may,
// so there the type field decides).
[[gnu::always_inline]] inline PacketFrame parse_packet_header(std::span<const std::uint8_t> bytes,
                                                              const Layout& layout,
                                                              std::uint64_t offset,
                                                              std::uint64_t max_total) {
  PacketFrame frame;
  if (bytes.size() < kPacketHeaderSize) {
    return frame;
  }
  const std::uint32_t first = load_u32(bytes.data(), layout.swap);
  const std::uint32_t second = load_u32(bytes.data() + 4, layout.swap);
  const std::uint32_t type = canonical_type(layout.type_first ? first : second, layout);
  if (bytes[0] == kHandshakeId && (layout.type_first || !is_known_packet_type(type))) {
    frame.status = ParseStatus::NextTrace;
    return frame;
  }
  const std::uint64_t field = layout.type_first ? second : first;
  const std::uint64_t counted_header = layout.type_first ? 0 : 4;
  const std::uint64_t total = kPacketHeaderSize + field - counted_header;
  if (field < counted_header || total > max_total) {
    frame.status = ParseStatus::Invalid;
    frame.problem = {.what = Problem::ImpossiblePacketSize, .offset = offset, .first = field};
    return frame;
  }
  frame.status = ParseStatus::Complete;
  frame.type = type;
  frame.data_size = total - kPacketHeaderSize;
  frame.total = total;
  return frame;
}

// The whole packet at the front of `bytes`: its header as parse_packet_header() reads it, and
// NeedMore until all of its `total` bytes are there.
[[gnu::always_inline]] inline PacketFrame parse_packet(std::span<const std::uint8_t> bytes,
                                                       const Layout& layout, std::uint64_t offset,
                                                       std::uint64_t max_total) {
  PacketFrame frame = parse_packet_header(bytes, layout, offset, max_total);
  if (frame.status == ParseStatus::Complete && bytes.size() < frame.total) {
    frame.status = ParseStatus::NeedMore;
  }
  return frame;
}

// The data of a packet that parse_packet() found Complete at the front of `bytes`.
inline std::span<const std::uint8_t> packet_data(std::span<const std::uint8_t> bytes,
                                                 const PacketFrame& frame) {
  return bytes.subspan(kPacketHeaderSize, static_cast<std::size_t>(frame.data_size));
}

}  // namespace rtrace::sprtrace
