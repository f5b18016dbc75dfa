#include "recorder/packet_stream.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "support/test_paths.h"

namespace rtrace::recorder {
namespace {

// A little-endian packet [type][size][data].
std::string packet(const char (&type)[5], const std::string& data) {
  std::string out(type, 4);
  const auto size = static_cast<std::uint32_t>(data.size());
  out.append(reinterpret_cast<const char*>(&size), 4);
  return out + data;
}

// The original's memory trace (a real 2.0 stream) with rtrace's packets: RCMD after its
// handshake and first packet, REND at the end when `ended`.
struct Stream {
  std::string original;
  std::string extended;
};

Stream stream(bool ended) {
  const std::string raw = test::read_file(test::fixture("sp-rtrace/memory/memory.raw"));
  const std::size_t handshake = 2 + static_cast<unsigned char>(raw[1]);
  std::uint32_t first_size = 0;
  std::memcpy(&first_size, raw.data() + handshake + 4, 4);
  const std::size_t after_pinf = handshake + 8 + first_size;
  const std::string rcmd = packet("RCMD", std::string(12, '\0'));
  const std::string rend = packet("REND", std::string(36, '\0'));
  return {raw, raw.substr(0, after_pinf) + rcmd + raw.substr(after_pinf) + (ended ? rend : "")};
}

std::string feed_in_pieces(PacketStream& packets, const std::string& bytes, std::size_t piece) {
  std::string out;
  for (std::size_t at = 0; at < bytes.size(); at += piece) {
    const std::string part = bytes.substr(at, piece);
    packets.feed({reinterpret_cast<const std::uint8_t*>(part.data()), part.size()}, out);
  }
  return out;
}

TEST(PacketStream, KeepsEverythingAndTellsAStreamThatBrokeOff) {
  RTRACE_NEEDS_FIXTURES();
  for (const bool ended : {true, false}) {
    const Stream s = stream(ended);
    PacketStream packets(false);
    EXPECT_EQ(feed_in_pieces(packets, s.extended, 7), s.extended);
    EXPECT_EQ(packets.broke_off(), !ended);
  }
}

TEST(PacketStream, StripsTheExtensionsWhateverTheChunks) {
  RTRACE_NEEDS_FIXTURES();
  for (const std::size_t piece : {1, 3, 8, 4096}) {
    const Stream s = stream(true);
    PacketStream packets(true);
    EXPECT_EQ(feed_in_pieces(packets, s.extended, piece), s.original) << piece;
    EXPECT_FALSE(packets.broke_off());
  }
}

TEST(PacketStream, OriginalTracesNeverBreakOff) {
  RTRACE_NEEDS_FIXTURES();
  const Stream s = stream(false);
  PacketStream packets(true);
  EXPECT_EQ(feed_in_pieces(packets, s.original, 5), s.original);
  EXPECT_FALSE(packets.broke_off());
}

TEST(PacketStream, PassesOnWhatIsNotATrace) {
  PacketStream packets(true);
  const std::string text = "version=2.0, arch=x86_64\n";
  EXPECT_EQ(feed_in_pieces(packets, text, 2), text);
}

}  // namespace
}  // namespace rtrace::recorder
