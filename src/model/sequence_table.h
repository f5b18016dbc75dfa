// Interned sequences: each distinct sequence of values is stored once and named by a small id.
//
// Real traces repeat the same few thousand stacks millions of times; a stage that keeps calls
// keeps a BacktraceId per call. Lookup hashes the values and compares them once on a hit. The
// values come from the trace, so the hash is keyed with the process's secret seed
// (sequence_hash.h): a crafted trace cannot make its sequences share a probe run.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "model/seeded_hash.h"
#include "model/sequence_hash.h"

namespace rtrace {

// The two words a value of a sequence feeds the hash (SequenceHash): every bit of it (values
// that differ must give different words, or a trace could make them collide on purpose).
inline std::array<std::uint64_t, 2> sequence_words(std::uint64_t value) {
  return {value, 0};
}

template <typename T>
class SequenceTable {
 public:
  using Id = std::uint32_t;

  SequenceTable() : hash_(hash_seed()), starts_{0, 0}, hashes_{hash({})}, slots_(1024) {
    place(0, hashes_[0]);
  }

  // The id of `values`, adding it when new. The empty sequence always has id 0.
  Id intern(std::span<const T> values) {
    const std::uint64_t h = hash(values);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot slot = slots_[i];
      if (slot.id == kEmpty) {
        break;
      }
      if (slot.check == check_of(h) && std::ranges::equal(at(slot.id), values)) {
        return slot.id;
      }
    }
    const auto id = static_cast<Id>(size());
    values_.insert(values_.end(), values.begin(), values.end());
    starts_.push_back(values_.size());
    hashes_.push_back(h);
    if (size() * 2 > slots_.size()) {
      grow();
    } else {
      place(id, h);
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
      if (slots_[i].id != kEmpty) {
        longest = std::max(longest, (i - (hashes_[slots_[i].id] & mask)) & mask);
      }
    }
    return longest;
  }

 private:
  std::uint64_t hash(std::span<const T> values) const {
    return hash_(values, [](const T& value) { return sequence_words(value); });
  }

  // The upper half of a hash (the lower half picks the slot): a probe compares it in the slot
  // itself and reads the sequence's hash and values, elsewhere in memory, only when it matches.
  static std::uint32_t check_of(std::uint64_t h) { return static_cast<std::uint32_t>(h >> 32); }

  void place(Id id, std::uint64_t h) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = h & mask;
    while (slots_[i].id != kEmpty) {
      i = (i + 1) & mask;
    }
    slots_[i] = Slot{.id = id, .check = check_of(h)};
  }

  void grow() {
    slots_.assign(slots_.size() * 2, Slot{});
    for (Id id = 0; id < size(); ++id) {
      place(id, hashes_[id]);
    }
  }

  static constexpr Id kEmpty = ~Id{0};
  struct Slot {
    Id id = kEmpty;
    std::uint32_t check = 0;  // check_of(the hash of sequence `id`)
  };

  SequenceHash hash_;                  // first: the constructor hashes the empty sequence
  std::vector<T> values_;              // all sequences, one after another
  std::vector<std::uint64_t> starts_;  // id -> offset in values_; one extra entry at the end
  std::vector<std::uint64_t> hashes_;  // id -> hash (to place the sequences again on growth)
  std::vector<Slot> slots_;            // open addressing
};

}  // namespace rtrace
