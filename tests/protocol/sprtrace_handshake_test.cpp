// The sp-rtrace handshake parser (protocol/sprtrace_handshake.h) on the original tracer's
// handshakes, on every cut of them, and on handshakes that are not ones this reader reads.
#include "protocol/sprtrace_handshake.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "wire_bytes.h"

namespace rtrace::sprtrace {
namespace {

using test::Bytes;

// The parse of exactly these bytes: a copy of its own, so that a read past them is caught by
// the sanitizer builds. (The copy is gone on return: the result's arch must not be looked at.)
HandshakeParse parse_exactly(const Bytes& bytes, std::size_t count) {
  const Bytes cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(count));
  return parse_handshake(cut);
}

TEST(SprtraceHandshake, ReadsTheOriginalTracersHandshakes) {
  RTRACE_NEEDS_FIXTURES();
  for (const char* trace : test::kFixtureTraces) {
    const Bytes bytes = test::fixture_bytes(trace);
    const HandshakeParse parsed = parse_handshake(bytes);
    ASSERT_EQ(parsed.status, ParseStatus::Complete) << trace;
    EXPECT_EQ(parsed.size, 16U) << trace;  // [F0][0E][2][0][6]x86_64[0][8] and two NULs
    EXPECT_EQ(parsed.handshake.major, 2) << trace;
    EXPECT_EQ(parsed.handshake.minor, 0) << trace;
    EXPECT_EQ(parsed.handshake.arch, "x86_64") << trace;
    EXPECT_FALSE(parsed.handshake.big_endian) << trace;
    EXPECT_EQ(parsed.handshake.pointer_size, 8) << trace;
  }
}

// Cut anywhere, a handshake needs more bytes: 2 to know its size, then all of them.
TEST(SprtraceHandshake, NeedsMoreAtEveryCutPoint) {
  RTRACE_NEEDS_FIXTURES();
  for (const char* trace : test::kFixtureTraces) {
    const Bytes bytes = test::fixture_bytes(trace);
    const std::size_t total = parse_handshake(bytes).size;
    for (std::size_t cut = 0; cut < total; ++cut) {
      const HandshakeParse parsed = parse_exactly(bytes, cut);
      EXPECT_EQ(parsed.status, ParseStatus::NeedMore) << trace << " cut at " << cut;
      EXPECT_EQ(parsed.size, cut < 2 ? 2 : total) << trace << " cut at " << cut;
    }
    EXPECT_EQ(parse_exactly(bytes, total).status, ParseStatus::Complete) << trace;
  }
}

TEST(SprtraceHandshake, WritesWhatItReads) {
  for (const bool big_endian : {false, true}) {
    for (const std::uint8_t pointer_size : {std::uint8_t{4}, std::uint8_t{8}}) {
      for (std::size_t length = 0; length <= kMaxArchLength + 3; ++length) {
        const std::string arch(length, 'a');
        Bytes out(kMaxHandshakeSize + 8, 0xEE);
        const std::size_t written =
            write_handshake({.arch = arch, .big_endian = big_endian, .pointer_size = pointer_size},
                            reinterpret_cast<char*>(out.data()));
        const std::size_t kept = std::min(length, kMaxArchLength);
        ASSERT_EQ(written, handshake_size(kept));
        EXPECT_EQ(written % 4, 0U);
        EXPECT_LE(written, kMaxHandshakeSize);
        EXPECT_EQ(out[written], 0xEE) << "wrote past its handshake";
        const Bytes exact(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(written));
        const HandshakeParse parsed = parse_handshake(exact);  // its arch is a view of `exact`
        ASSERT_EQ(parsed.status, ParseStatus::Complete) << length;
        EXPECT_EQ(parsed.size, written);
        EXPECT_EQ(parsed.handshake.major, kWrittenMajor);
        EXPECT_EQ(parsed.handshake.minor, kWrittenMinor);
        EXPECT_EQ(parsed.handshake.arch, std::string(kept, 'a'));
        EXPECT_EQ(parsed.handshake.big_endian, big_endian);
        EXPECT_EQ(parsed.handshake.pointer_size, pointer_size);
      }
    }
  }
}

TEST(SprtraceHandshake, ReadsEveryEarlierVersion) {
  for (const std::uint8_t minor : {0, 2, 3, 4, 9}) {
    const HandshakeParse parsed = parse_handshake(test::handshake_bytes(1, minor, true, 4));
    ASSERT_EQ(parsed.status, ParseStatus::Complete) << int{minor};
    EXPECT_EQ(parsed.handshake.major, 1);
    EXPECT_EQ(parsed.handshake.minor, minor);
    EXPECT_TRUE(parsed.handshake.big_endian);
    EXPECT_EQ(parsed.handshake.pointer_size, 4);
    EXPECT_FALSE(layout_of(parsed.handshake).type_first);
  }
}

// The problem a parse of `bytes` finds, as "what first second".
std::string problem_of(const Bytes& bytes) {
  const HandshakeParse parsed = parse_handshake(bytes);
  if (parsed.status != ParseStatus::Invalid) {
    return "no problem";
  }
  EXPECT_EQ(parsed.problem.offset, 0U);
  return std::to_string(static_cast<int>(parsed.problem.what)) + " " +
         std::to_string(parsed.problem.first) + " " + std::to_string(parsed.problem.second);
}

std::string expected(Problem what, std::uint64_t first = 0, std::uint64_t second = 0) {
  return std::to_string(static_cast<int>(what)) + " " + std::to_string(first) + " " +
         std::to_string(second);
}

TEST(SprtraceHandshake, SaysWhatIsWrong) {
  EXPECT_EQ(problem_of({'v', 'e', 'r'}), expected(Problem::NotAHandshake));
  EXPECT_EQ(problem_of({'v'}), expected(Problem::NotAHandshake));
  EXPECT_EQ(problem_of(test::handshake_bytes(3, 0, false)),
            expected(Problem::UnsupportedVersion, 3, 0));
  EXPECT_EQ(problem_of(test::handshake_bytes(2, 1, false)),
            expected(Problem::UnsupportedVersion, 2, 1));
  EXPECT_EQ(problem_of(test::handshake_bytes(0, 9, false)),
            expected(Problem::UnsupportedVersion, 0, 9));
  EXPECT_EQ(problem_of(test::handshake_bytes(2, 0, false, 2)),
            expected(Problem::UnsupportedPointerSize, 2));
  Bytes order = test::handshake_bytes(2, 0, false);
  order[5 + 6] = 2;
  EXPECT_EQ(problem_of(order), expected(Problem::UnknownByteOrder, 2));
}

// A size byte that leaves no room for the fields, whatever the bytes after it: the parse never
// looks past the handshake's own size.
TEST(SprtraceHandshake, RefusesAHandshakeTooShortForItsFields) {
  // [F0][size] then 5 bytes of fields and the 6 of "x86_64": a size of 11 holds them.
  for (std::uint8_t size = 0; size < 11; ++size) {
    Bytes bytes = test::handshake_bytes(2, 0, false);  // 16 bytes, arch length 6
    bytes[1] = size;
    bytes.resize(2 + std::size_t{size});
    const HandshakeParse parsed = parse_handshake(bytes);
    EXPECT_EQ(parsed.status, ParseStatus::Invalid) << int{size};
    EXPECT_EQ(parsed.problem.what, Problem::HandshakeTooShort) << int{size};
  }
  Bytes hostile_arch = test::handshake_bytes(2, 0, false);
  hostile_arch[4] = 0xFF;  // an architecture name longer than the handshake
  hostile_arch.resize(kMaxHandshakeSize + 8, 0);
  EXPECT_EQ(parse_handshake(hostile_arch).problem.what, Problem::HandshakeTooShort);
}

}  // namespace
}  // namespace rtrace::sprtrace
