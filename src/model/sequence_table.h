// Interned sequences: each distinct sequence of values is stored once and named by a small id.
//
// Real traces repeat the same few thousand stacks millions of times; a stage that keeps calls
// keeps a BacktraceId per call. Lookup hashes the values and compares them once on a hit. The
// values come from the trace, so the hash is keyed with the process's secret seed
// (seeded_hash.h): a crafted trace cannot make its sequences share a probe run.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "model/seeded_hash.h"

namespace rtrace {

// The words a value of a sequence feeds the hash: every bit of it (values that differ must give
// different words, or a trace could make them collide on purpose).
inline std::array<std::uint64_t, 1> sequence_words(std::uint64_t value) {
  return {value};
}

template <typename T>
class SequenceTable {
 public:
  using Id = std::uint32_t;

  SequenceTable() : seed_(hash_seed()), starts_{0, 0}, hashes_{hash({})}, slots_(1024, kEmpty) {
    slots_[hashes_[0] & (slots_.size() - 1)] = 0;
  }

  // The id of `values`, adding it when new. The empty sequence always has id 0.
  Id intern(std::span<const T> values) {
    const std::uint64_t h = hash(values);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      const Id id = slots_[i];
      if (id == kEmpty) {
        break;
      }
      if (hashes_[id] == h && std::ranges::equal(at(id), values)) {
        return id;
      }
    }
    const auto id = static_cast<Id>(size());
    values_.insert(values_.end(), values.begin(), values.end());
    starts_.push_back(values_.size());
    hashes_.push_back(h);
    if (size() * 2 > slots_.size()) {
      grow();
    } else {
      for (std::size_t i = h & mask;; i = (i + 1) & mask) {
        if (slots_[i] == kEmpty) {
          slots_[i] = id;
          break;
        }
      }
    }
    return id;
  }

  std::span<const T> at(Id id) const {
    return {values_.data() + starts_[id], values_.data() + starts_[id + 1]};
  }
  std::size_t size() const { return starts_.size() - 1; }

  // How many slots past its home slot the farthest sequence sits: small for any input when the
  // hash does its job (tests hold crafted sequences to it).
  std::size_t longest_probe() const {
    const std::size_t mask = slots_.size() - 1;
    std::size_t longest = 0;
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      if (slots_[i] != kEmpty) {
        longest = std::max(longest, (i - (hashes_[slots_[i]] & mask)) & mask);
      }
    }
    return longest;
  }

 private:
  // The values' words are gathered in blocks and each block hashed with the previous block's
  // hash as its seed: one XXH3 call per block, not per value.
  std::uint64_t hash(std::span<const T> values) const {
    constexpr std::size_t kBlockWords = 32;
    std::array<std::uint64_t, kBlockWords> block{};
    std::size_t used = 0;
    std::uint64_t h = seed_ ^ values.size();
    for (const T& v : values) {
      const auto words = sequence_words(v);
      if (used + words.size() > block.size()) {
        h = seeded_hash(block.data(), used * sizeof(std::uint64_t), h);
        used = 0;
      }
      for (const std::uint64_t word : words) {
        block[used++] = word;
      }
    }
    return seeded_hash(block.data(), used * sizeof(std::uint64_t), h);
  }

  void grow() {
    slots_.assign(slots_.size() * 2, kEmpty);
    const std::size_t mask = slots_.size() - 1;
    for (Id id = 0; id < size(); ++id) {
      std::size_t i = hashes_[id] & mask;
      while (slots_[i] != kEmpty) {
        i = (i + 1) & mask;
      }
      slots_[i] = id;
    }
  }

  static constexpr Id kEmpty = ~Id{0};
  std::uint64_t seed_;                 // first: the constructor hashes the empty sequence
  std::vector<T> values_;              // all sequences, one after another
  std::vector<std::uint64_t> starts_;  // id -> offset in values_; one extra entry at the end
  std::vector<std::uint64_t> hashes_;  // id -> hash
  std::vector<Id> slots_;              // open addressing; kEmpty or an id
};

}  // namespace rtrace
