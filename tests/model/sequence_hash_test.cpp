#include "model/sequence_hash.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <set>
#include <vector>

#include "model/backtrace_table.h"

namespace rtrace {
namespace {

std::uint64_t hash_of(const SequenceHash& hash, const std::vector<Frame>& frames) {
  return hash(std::span<const Frame>(frames), [](const Frame& f) { return sequence_words(f); });
}

std::vector<Frame> frames_at(std::uint64_t first, std::size_t count) {
  std::vector<Frame> frames;
  for (std::size_t i = 0; i < count; ++i) {
    frames.push_back({.address = first + 0x10 * i, .symbol = static_cast<SymbolId>(i)});
  }
  return frames;
}

TEST(SequenceHash, SameSequenceSameHash) {
  const SequenceHash hash(12345);
  EXPECT_EQ(hash_of(hash, frames_at(0x401000, 10)), hash_of(hash, frames_at(0x401000, 10)));
  EXPECT_EQ(hash_of(SequenceHash(12345), frames_at(0x401000, 10)),
            hash_of(hash, frames_at(0x401000, 10)));
}

TEST(SequenceHash, TheSeedChangesEveryHash) {
  const SequenceHash a(1);
  const SequenceHash b(2);
  for (const std::size_t count : {0, 1, 10, 16, 17, 40}) {
    EXPECT_NE(hash_of(a, frames_at(0x401000, count)), hash_of(b, frames_at(0x401000, count)))
        << count << " frames";
  }
}

// Every word of every position counts: its address, its symbol, its place, the length, and the
// positions past the first block of keys.
TEST(SequenceHash, EveryWordCounts) {
  const SequenceHash hash(0x5eed);
  for (const std::size_t count : {1, 2, 10, 16, 17, 33, 50}) {
    const std::vector<Frame> base = frames_at(0x7f0000001000, count);
    std::set<std::uint64_t> seen{hash_of(hash, base)};
    for (std::size_t i = 0; i < count; ++i) {
      std::vector<Frame> address = base;
      address[i].address ^= std::uint64_t{1} << (i % 64);
      std::vector<Frame> symbol = base;
      symbol[i].symbol ^= 1U << (i % 32);
      EXPECT_TRUE(seen.insert(hash_of(hash, address)).second) << count << " frames, address " << i;
      EXPECT_TRUE(seen.insert(hash_of(hash, symbol)).second) << count << " frames, symbol " << i;
    }
    std::vector<Frame> swapped = base;
    if (count > 1) {
      std::swap(swapped.front(), swapped.back());
      EXPECT_TRUE(seen.insert(hash_of(hash, swapped)).second) << count << " frames, swapped";
    }
    std::vector<Frame> longer = base;
    longer.push_back({});
    EXPECT_TRUE(seen.insert(hash_of(hash, longer)).second) << count << " frames, one more";
  }
}

// Frames that differ only in their high address bits, or only in their symbol, or backtraces
// that differ only in their 17th frame (past the first block of keys), spread over the slots
// like any others.
TEST(SequenceHash, StructuredBacktracesDoNotShareAProbeRun) {
  constexpr std::uint64_t kCount = 4095;
  BacktraceTable high_bits;
  BacktraceTable symbols;
  BacktraceTable deep;
  for (std::uint64_t j = 1; j <= kCount; ++j) {
    const Frame high{.address = j << 40};
    high_bits.intern(std::span(&high, 1));
    const Frame symbol{.address = 0, .symbol = static_cast<SymbolId>(j)};
    symbols.intern(std::span(&symbol, 1));
    std::vector<Frame> frames = frames_at(0x401000, 17);
    frames[16].address = j << 32;
    deep.intern(frames);
  }
  for (const BacktraceTable* table : {&high_bits, &symbols, &deep}) {
    EXPECT_EQ(table->size(), kCount + 1);
    EXPECT_LT(table->longest_probe(), 100U);
  }
}

}  // namespace
}  // namespace rtrace
