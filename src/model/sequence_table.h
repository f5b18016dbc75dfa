// Interned sequences: each distinct sequence of values is stored once and named by a small id.
//
// Real traces repeat the same few thousand stacks millions of times; a stage that keeps calls
// keeps a BacktraceId per call. Lookup hashes the values and compares them once on a hit.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace rtrace {

// How a value of a sequence feeds the hash: its bits, mixed.
inline std::uint64_t sequence_word(std::uint64_t value) {
  return value;
}

template <typename T>
class SequenceTable {
 public:
  using Id = std::uint32_t;

  SequenceTable() : starts_{0, 0}, hashes_{hash({})}, slots_(1024, kEmpty) {
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

 private:
  static std::uint64_t hash(std::span<const T> values) {
    // 64-bit multiply-rotate mixing; return addresses are well spread, this only has to be quick.
    std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ values.size();
    for (const T& v : values) {
      h ^= sequence_word(v);
      h *= 0xbf58476d1ce4e5b9ULL;
      h ^= h >> 31;
    }
    return h;
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
  std::vector<T> values_;              // all sequences, one after another
  std::vector<std::uint64_t> starts_;  // id -> offset in values_; one extra entry at the end
  std::vector<std::uint64_t> hashes_;  // id -> hash
  std::vector<Id> slots_;              // open addressing; kEmpty or an id
};

}  // namespace rtrace
