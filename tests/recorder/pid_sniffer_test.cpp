#include "recorder/pid_sniffer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/test_paths.h"

namespace rtrace::recorder {
namespace {

std::vector<std::uint8_t> bytes_of(const std::string& text) {
  return {text.begin(), text.end()};
}

std::vector<std::uint8_t> memory_raw() {
  return bytes_of(test::read_file(test::fixture("sp-rtrace/memory/memory.raw")));
}

TEST(PidSniffer, FindsThePidOfTheRealTracer) {
  RTRACE_NEEDS_FIXTURES();
  PidSniffer sniffer;
  sniffer.feed(memory_raw());
  EXPECT_EQ(sniffer.pid(), 778U);  // the MANIFEST: the tracer wrote 778-0.rtrace
}

TEST(PidSniffer, FindsItWhateverTheChunksAre) {
  RTRACE_NEEDS_FIXTURES();
  const std::vector<std::uint8_t> raw = memory_raw();
  PidSniffer sniffer;
  for (const std::uint8_t byte : raw) {
    sniffer.feed(std::span(&byte, 1));
  }
  EXPECT_EQ(sniffer.pid(), 778U);
}

TEST(PidSniffer, NotYetWhenThePacketIsCut) {
  RTRACE_NEEDS_FIXTURES();
  const std::vector<std::uint8_t> raw = memory_raw();
  PidSniffer sniffer;
  sniffer.feed(std::span(raw).first(0x3e));  // PINF's pid field half there
  EXPECT_FALSE(sniffer.pid().has_value());
  sniffer.feed(std::span(raw).subspan(0x3e, 2));
  EXPECT_EQ(sniffer.pid(), 778U);
  EXPECT_FALSE(sniffer.name().has_value());
  sniffer.feed(std::span(raw).subspan(0x40));
  EXPECT_EQ(sniffer.name(), "./memory");  // argv[0], as the original tracer wrote it
}

TEST(PidSniffer, FindsTheNameWhateverTheChunksAre) {
  RTRACE_NEEDS_FIXTURES();
  const std::vector<std::uint8_t> raw = memory_raw();
  PidSniffer sniffer;
  for (const std::uint8_t byte : raw) {
    sniffer.feed(std::span(&byte, 1));
  }
  EXPECT_EQ(sniffer.name(), "./memory");
}

// Protocol 1.x, big-endian: [size][type] headers whose size counts the type field too (as the
// binary reader reads them), values most significant byte first.
TEST(PidSniffer, ReadsOldBigEndianStreams) {
  const std::vector<std::uint8_t> stream = {
      0xF0, 0x0A, 1, 4,  3,   'p', 'p', 'c', 1, 4, 0,    0,  // handshake, padded to 12 bytes
      0,    0,    0, 8,  'O', 'C', 'F', 'G', 1, 2, 3,    4,  // some packet
      0,    0,    0, 12, 'P', 'I', 'N', 'F', 0, 0, 0x30, 0x39, 0, 0, 0, 0};
  PidSniffer sniffer;
  sniffer.feed(stream);
  EXPECT_EQ(sniffer.pid(), 12345U);
}

TEST(PidSniffer, GivesUpOnWhatIsNotATrace) {
  PidSniffer sniffer;
  sniffer.feed(bytes_of("version=2.0, arch=x86_64, PINF\x01\x02\x03\x04"));
  EXPECT_FALSE(sniffer.pid().has_value());
}

// A 2.0 little-endian stream: handshake, one CALL packet with `call_size` bytes of data, PINF.
std::vector<std::uint8_t> stream_with_call_of(std::uint32_t call_size) {
  std::vector<std::uint8_t> stream = {0xF0, 0x0A, 2, 0, 3,   'x', '8', '6',
                                      0,    8,    0, 0, 'C', 'A', 'L', 'L'};
  for (int shift = 0; shift < 32; shift += 8) {
    stream.push_back(static_cast<std::uint8_t>(call_size >> shift));
  }
  stream.resize(stream.size() + call_size, 0);
  const std::vector<std::uint8_t> pinf = {'P', 'I', 'N', 'F', 4, 0, 0, 0, 1, 0, 0, 0};
  stream.insert(stream.end(), pinf.begin(), pinf.end());
  return stream;
}

TEST(PidSniffer, SkipsThePacketsBefore) {
  PidSniffer sniffer;
  sniffer.feed(stream_with_call_of(100000));
  EXPECT_EQ(sniffer.pid(), 1U);
}

// A 2.0 little-endian stream whose PINF (pid 1) holds `name_bytes` with `length` in the name's
// length field.
std::vector<std::uint8_t> stream_with_name(std::uint16_t length, const std::string& name_bytes) {
  std::vector<std::uint8_t> stream = {0xF0, 0x0A, 2, 0, 3,   'x', '8', '6',
                                      0,    8,    0, 0, 'P', 'I', 'N', 'F'};
  const auto data_size = static_cast<std::uint32_t>(4 + 12 + 2 + name_bytes.size());
  for (int shift = 0; shift < 32; shift += 8) {
    stream.push_back(static_cast<std::uint8_t>(data_size >> shift));
  }
  const std::vector<std::uint8_t> fields = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  stream.insert(stream.end(), fields.begin(), fields.end());
  stream.push_back(static_cast<std::uint8_t>(length));
  stream.push_back(static_cast<std::uint8_t>(length >> 8));
  stream.insert(stream.end(), name_bytes.begin(), name_bytes.end());
  return stream;
}

// The name is held, not trusted: cut at kMaxNameBytes, at the packet's end, at its first NUL.
TEST(PidSniffer, TheNameIsCutWhereItMustBe) {
  PidSniffer sniffer;
  sniffer.feed(stream_with_name(300, std::string(300, 'a')));
  EXPECT_EQ(sniffer.name(), std::string(PidSniffer::kMaxNameBytes, 'a'));
  PidSniffer beyond;
  beyond.feed(stream_with_name(0xffff, "abcd"));
  EXPECT_EQ(beyond.pid(), 1U);
  EXPECT_EQ(beyond.name(), "abcd");
  PidSniffer padded;
  padded.feed(stream_with_name(6, std::string("ls\0\0\0\0", 6)));
  EXPECT_EQ(padded.name(), "ls");
}

// A stream that does not say its pid early is not read on for ever (the peer's pid is used).
TEST(PidSniffer, GivesUpAfterTheFirstMegabyte) {
  PidSniffer sniffer;
  sniffer.feed(stream_with_call_of(PidSniffer::kGiveUpAfter));
  EXPECT_FALSE(sniffer.pid().has_value());
}

}  // namespace
}  // namespace rtrace::recorder
