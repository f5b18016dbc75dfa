// Damaged binary traces: whatever the damage, the reader never crashes or hangs, delivers only
// records that are in the intact trace, finishes the sink once, and names a position.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "binary_test_support.h"
#include "support/test_paths.h"

namespace rtrace::test {
namespace {

// `part` is `whole` cut short; its last record may be a call that lost what came after the cut
// (its arguments or backtrace), which shortens its description.
bool is_prefix(const std::vector<std::string>& part, const std::vector<std::string>& whole) {
  if (part.empty()) {
    return true;
  }
  if (part.size() > whole.size()) {
    return false;
  }
  const std::size_t last = part.size() - 1;
  return std::equal(part.begin(), part.begin() + static_cast<std::ptrdiff_t>(last),
                    whole.begin()) &&
         whole[last].starts_with(part[last]);
}

// Cut memory.raw after every byte: the records are a prefix of the intact trace's, and the cut
// is reported as a warning at the offset of the packet it cut (or of the handshake).
TEST(BinaryDamage, TruncationAtEveryOffset) {
  RTRACE_NEEDS_FIXTURES();
  const std::string bytes = read_fixture("memory/memory.raw");
  const auto intact = read_bytes(bytes);
  for (std::size_t length = 0; length < bytes.size(); ++length) {
    const auto result = read_bytes(bytes.substr(0, length));
    ASSERT_FALSE(result->failed) << "length " << length << ": " << result->error;
    EXPECT_EQ(result->sink.finish_count(), 1);
    ASSERT_TRUE(is_prefix(result->sink.lines(), intact->sink.lines())) << "length " << length;
    // Only a cut between packets goes unnoticed.
    if (result->warnings.empty()) {
      continue;
    }
    EXPECT_TRUE(result->warnings.starts_with("trace:")) << result->warnings;
    EXPECT_NE(result->warnings.find("truncated"), std::string::npos) << result->warnings;
  }
}

// A cut inside a call's BTRC still delivers the call (without the cut backtrace).
TEST(BinaryDamage, TruncationInsideABacktraceKeepsTheCall) {
  RTRACE_NEEDS_FIXTURES();
  const std::string bytes = read_fixture("memory/memory.raw");
  const std::size_t first_btrc = bytes.find("BTRC");
  const auto result = read_bytes(bytes.substr(0, first_btrc + 20));
  EXPECT_EQ(result->sink.lines().back(),
            "call #1 malloc kind=2 type=1 ctx=0x0 ts=438233 size=16 id=0x15dcf2a0");
  EXPECT_EQ(result->warnings, "trace:" + std::to_string(first_btrc) +
                                  ": warning: truncated packet (20 of 76 bytes); ignored\n");
}

// Random byte changes, with a fixed seed: no crash, no hang, a finished sink, and either clean
// records or a warning or an error with a position inside the input.
TEST(BinaryDamage, RandomMutationsNeverCrash) {
  RTRACE_NEEDS_FIXTURES();
  const std::string originals[] = {read_fixture("memory/memory.raw"), read_fixture("fd/fd.raw"),
                                   read_fixture("context/context.raw")};
  std::mt19937 random(20261121);
  for (int round = 0; round < 3000; ++round) {
    std::string bytes = originals[round % 3];
    const int changes = 1 + static_cast<int>(random() % 8);
    for (int i = 0; i < changes; ++i) {
      const std::size_t at = random() % bytes.size();
      // Mostly small values and 0xFF, which make sizes and counts interesting.
      const std::uint32_t pick = random() % 4;
      bytes[at] = static_cast<char>(pick == 0 ? 0xFF : pick == 1 ? 0 : random() % 256);
    }
    const auto result = read_bytes(bytes, round % 2 == 0 ? 1 << 20 : 13);
    EXPECT_EQ(result->sink.finish_count(), 1) << "round " << round;
    if (result->failed) {
      EXPECT_LT(result->error_position, bytes.size()) << "round " << round;
    }
  }
}

}  // namespace
}  // namespace rtrace::test
