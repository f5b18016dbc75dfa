// A keyed hash of sequences of small values (backtraces, argument lists), for the tables that
// intern them.
//
// The values come from the trace, so the hash must be keyed (seeded_hash.h): a crafted trace
// must not be able to put its sequences in one probe run. XXH3 with a seed did that, but it
// hashes bytes: every call gathered its frames' bytes into a buffer first, and interning a
// backtrace per call was an eighth of `rtrace process -c`. This hash takes each value as two
// 64-bit words where it lies, and mixes them the way XXH3 mixes 16 input bytes: the 128-bit
// product of the words, each XORed with its own secret key word, folded to 64 bits, the folds of
// a block of positions summed. The key words are drawn from the process's secret seed, one pair
// per position of a block, so whoever wrote the trace knows neither the products nor which
// values collide. Blocks are chained through a keyed multiplication, and the result is mixed
// once more so that its low bits (the slot) depend on every word.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace rtrace {

class SequenceHash {
 public:
  // Keys drawn from `seed` (hash_seed(): the process's secret).
  explicit SequenceHash(std::uint64_t seed);

  // `words(value)` gives a value's two words: values that differ must give different words (or
  // a trace could make them collide on purpose).
  template <typename T, typename Words>
  std::uint64_t operator()(std::span<const T> values, Words words) const {
    std::uint64_t h = fold_product(values.size() ^ chain_[0], chain_[1]);
    std::size_t i = 0;
    while (i < values.size()) {
      // A block: the sum of its positions' keyed products, chained into h.
      const std::size_t end = std::min(i + kBlock, values.size());
      std::uint64_t sum = 0;
      for (std::size_t k = 0; i < end; ++i, k += 2) {
        const auto [a, b] = words(values[i]);
        sum += fold_product(a ^ keys_[k], b ^ keys_[k + 1]);
      }
      h = fold_product(h ^ sum ^ chain_[2], chain_[3]);
    }
    return avalanche(h);
  }

 private:
  // The 128-bit product of a and b, its halves XORed.
  static std::uint64_t fold_product(std::uint64_t a, std::uint64_t b) {
    __extension__ using Product = unsigned __int128;
    const Product product = Product{a} * b;
    return static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
  }

  // Spreads every bit of h over the low ones (and the high ones: the table keeps the upper half
  // as a check).
  static std::uint64_t avalanche(std::uint64_t h) {
    h ^= h >> 37;
    h *= 0x165667919e3779f9ULL;
    return h ^ (h >> 32);
  }

  static constexpr std::size_t kBlock = 16;  // positions with keys of their own
  std::array<std::uint64_t, 2 * kBlock> keys_{};
  std::array<std::uint64_t, 4> chain_{};  // the length's and the blocks' keys
};

}  // namespace rtrace
