// The sp-rtrace packet header parser (protocol/sprtrace_framing.h): every packet of the original
// tracer's traces in both byte orders, every cut of every packet, hostile sizes, the 1.x
// headers, and a second trace after the first.
#include "protocol/sprtrace_framing.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "wire_bytes.h"

namespace rtrace::sprtrace {
namespace {

using test::Bytes;

constexpr std::uint32_t type_of(PacketType type) {
  return static_cast<std::uint32_t>(type);
}

// The packets of a fixture trace fill it to its last byte, each of a known type.
TEST(SprtraceFraming, WalksTheOriginalTracersTraces) {
  RTRACE_NEEDS_FIXTURES();
  for (const char* trace : test::kFixtureTraces) {
    const Bytes bytes = test::fixture_bytes(trace);
    PacketFrame last;
    const std::vector<test::WalkedPacket> packets = test::walk(bytes, last);
    ASSERT_FALSE(packets.empty()) << trace;
    EXPECT_EQ(last.status, ParseStatus::NeedMore) << trace;  // nothing left
    EXPECT_EQ(packets.back().offset + packets.back().total, bytes.size()) << trace;
    for (const test::WalkedPacket& packet : packets) {
      EXPECT_TRUE(is_known_packet_type(packet.type)) << trace << " at " << packet.offset;
    }
    EXPECT_EQ(packets[1].type, type_of(PacketType::ProcessInfo)) << trace;  // after OCFG
  }
}

// The same packets from a big-endian tracer: types stored as "LLAC", sizes most significant
// byte first.
TEST(SprtraceFraming, ReadsBothByteOrders) {
  RTRACE_NEEDS_FIXTURES();
  for (const char* trace : test::kFixtureTraces) {
    const Bytes little = test::fixture_bytes(trace);
    const Bytes big = test::to_big_endian(little);
    ASSERT_NE(big, little);
    const HandshakeParse handshake = parse_handshake(big);
    ASSERT_EQ(handshake.status, ParseStatus::Complete);
    EXPECT_TRUE(handshake.handshake.big_endian);
    EXPECT_NE(layout_of(handshake.handshake).swap, kBigEndianMachine);
    PacketFrame little_last;
    PacketFrame big_last;
    EXPECT_EQ(test::walk(big, big_last), test::walk(little, little_last)) << trace;
    EXPECT_EQ(big_last.status, ParseStatus::NeedMore);
  }
}

// Cut anywhere in a packet, the parse asks for the header, then for the whole packet, and never
// reads past the bytes it was given (each cut is a copy of its own for the sanitizer builds).
TEST(SprtraceFraming, NeedsMoreAtEveryCutPoint) {
  RTRACE_NEEDS_FIXTURES();
  for (const char* trace : test::kFixtureTraces) {
    for (const bool big_endian : {false, true}) {
      const Bytes little = test::fixture_bytes(trace);
      const Bytes bytes = big_endian ? test::to_big_endian(little) : little;
      const Layout layout = layout_of(parse_handshake(bytes).handshake);
      PacketFrame last;
      for (const test::WalkedPacket& packet : test::walk(bytes, last)) {
        const auto start = bytes.begin() + static_cast<std::ptrdiff_t>(packet.offset);
        for (std::uint64_t cut = 0; cut < packet.total; ++cut) {
          const Bytes piece(start, start + static_cast<std::ptrdiff_t>(cut));
          const PacketFrame frame = parse_packet(piece, layout, packet.offset, kMaxPacketSize);
          ASSERT_EQ(frame.status, ParseStatus::NeedMore) << trace << " at " << packet.offset;
          ASSERT_EQ(frame.total, cut < kPacketHeaderSize ? kPacketHeaderSize : packet.total);
        }
      }
    }
  }
}

// A size no packet can have is a problem at the packet's offset, before anything waits for it.
TEST(SprtraceFraming, RefusesHostileSizes) {
  for (const bool big_endian : {false, true}) {
    const Layout layout =
        layout_of(parse_handshake(test::handshake_bytes(2, 0, big_endian)).handshake);
    const Bytes huge =
        test::header_bytes(type_of(PacketType::FunctionCall), 0xFFFFFFFF, big_endian);
    const PacketFrame frame = parse_packet(huge, layout, 1234, kMaxPacketSize);
    EXPECT_EQ(frame.status, ParseStatus::Invalid);
    EXPECT_EQ(frame.problem.what, Problem::ImpossiblePacketSize);
    EXPECT_EQ(frame.problem.offset, 1234U);
    EXPECT_EQ(frame.problem.first, 0xFFFFFFFFU);

    const auto largest = static_cast<std::uint32_t>(kMaxPacketSize - kPacketHeaderSize);
    const Bytes at_limit =
        test::header_bytes(type_of(PacketType::FunctionArgs), largest, big_endian);
    EXPECT_EQ(parse_packet_header(at_limit, layout, 0, kMaxPacketSize).status,
              ParseStatus::Complete);
    EXPECT_EQ(parse_packet(at_limit, layout, 0, kMaxPacketSize).status, ParseStatus::NeedMore);
    const Bytes over =
        test::header_bytes(type_of(PacketType::FunctionArgs), largest + 1, big_endian);
    EXPECT_EQ(parse_packet(over, layout, 0, kMaxPacketSize).status, ParseStatus::Invalid);
    // A stream passed on as it comes may have no limit.
    EXPECT_EQ(parse_packet_header(huge, layout, 0, UINT64_MAX).data_size, 0xFFFFFFFFU);
  }
}

// Before 2.0: [size][type], the size counting the type field.
TEST(SprtraceFraming, ReadsOldHeaders) {
  for (const bool big_endian : {false, true}) {
    const Layout layout =
        layout_of(parse_handshake(test::handshake_bytes(1, 4, big_endian)).handshake);
    ASSERT_FALSE(layout.type_first);
    Bytes packet = test::header_bytes(type_of(PacketType::ProcessInfo), 4 + 12, big_endian, false);
    packet.resize(packet.size() + 12);
    const PacketFrame frame = parse_packet(packet, layout, 0, kMaxPacketSize);
    ASSERT_EQ(frame.status, ParseStatus::Complete);
    EXPECT_EQ(frame.type, type_of(PacketType::ProcessInfo));
    EXPECT_EQ(frame.data_size, 12U);
    EXPECT_EQ(frame.total, 20U);
    EXPECT_EQ(packet_data(packet, frame).size(), 12U);
    for (const std::uint32_t size : {0U, 3U}) {
      const Bytes short_size =
          test::header_bytes(type_of(PacketType::ProcessInfo), size, big_endian, false);
      const PacketFrame bad = parse_packet(short_size, layout, 40, kMaxPacketSize);
      EXPECT_EQ(bad.status, ParseStatus::Invalid);
      EXPECT_EQ(bad.problem.what, Problem::ImpossiblePacketSize);
      EXPECT_EQ(bad.problem.offset, 40U);
      EXPECT_EQ(bad.problem.first, size);
    }
  }
}

// A big-endian writer that spelled the letters as bytes ("CALL") is read as one that stored the
// value ("LLAC"); an unknown type is left as it is.
TEST(SprtraceFraming, ReadsTypesSpelledAsBytes) {
  const Layout layout = layout_of(parse_handshake(test::handshake_bytes(2, 0, true)).handshake);
  const Bytes spelled = {'C', 'A', 'L', 'L', 0, 0, 0, 0};
  EXPECT_EQ(parse_packet(spelled, layout, 0, kMaxPacketSize).type,
            type_of(PacketType::FunctionCall));
  const Bytes unknown = {'X', 'Y', 'Z', 'W', 0, 0, 0, 0};
  EXPECT_EQ(parse_packet(unknown, layout, 0, kMaxPacketSize).type, packet_type("XYZW", true));
  // In a little-endian trace only the stored value counts.
  const Layout little = layout_of(parse_handshake(test::handshake_bytes(2, 0, false)).handshake);
  EXPECT_EQ(parse_packet(Bytes{'L', 'L', 'A', 'C', 0, 0, 0, 0}, little, 0, kMaxPacketSize).type,
            packet_type("LLAC"));
}

// A handshake where a packet should start: a second trace. Before 2.0 the size comes first and
// may begin with the handshake byte: there the type decides.
TEST(SprtraceFraming, FindsASecondTrace) {
  for (const bool big_endian : {false, true}) {
    const Layout layout =
        layout_of(parse_handshake(test::handshake_bytes(2, 0, big_endian)).handshake);
    EXPECT_EQ(
        parse_packet(test::handshake_bytes(2, 0, big_endian), layout, 0, kMaxPacketSize).status,
        ParseStatus::NextTrace);

    const Layout old =
        layout_of(parse_handshake(test::handshake_bytes(1, 4, big_endian)).handshake);
    EXPECT_EQ(parse_packet(test::handshake_bytes(1, 4, big_endian), old, 0, kMaxPacketSize).status,
              ParseStatus::NextTrace);
    // A size whose first byte is 0xF0 (little-endian 0x...F0, big-endian 0xF0......), with a
    // known type after it: a packet.
    const std::uint32_t size = big_endian ? 0xF0000000U : 0xF0U;
    Bytes packet =
        test::header_bytes(type_of(PacketType::ContextRegistry), size, big_endian, false);
    ASSERT_EQ(packet[0], kHandshakeId);
    const PacketFrame frame = parse_packet_header(packet, old, 0, UINT64_MAX);
    EXPECT_EQ(frame.status, ParseStatus::Complete);
    EXPECT_EQ(frame.data_size, size - 4);
  }
}

}  // namespace
}  // namespace rtrace::sprtrace
