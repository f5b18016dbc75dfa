// A set of resource keys packed into 64 bits each (an id below 2^56, a type from 1 to 255), for
// the leaks scan's second half (two_halves.h): the keys whose blocks it released, 8 bytes a
// slot where the live table takes 24, as there is one for every address the half ever freed.
//
// Open addressing with linear probing, at most half full, no deletion. Slots are chosen by the
// caller's hash of the key (ResourceMap::hash_with with the same `seed`), computed once per call
// for the live table as well.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "filters/resource_map.h"

namespace rtrace {

class PackedKeySet {
 public:
  // Room for `expected` keys before it grows (each growth hashes every key again).
  PackedKeySet(std::uint64_t seed, std::size_t expected)
      : seed_(seed), slots_(std::bit_ceil(std::max(expected * 2, kInitialSlots))) {}

  // Whether `key` can be held: others must be handled another way.
  static bool fits(const ResourceKey& key) {
    return (key.id >> 56) == 0 && key.type != 0 && key.type < 256;
  }

  // `key` must fit(); `hash` is ResourceMap<...>::hash_with(key, seed).
  bool contains(const ResourceKey& key, std::uint64_t hash) const {
    const std::uint64_t packed = pack(key);
    for (std::size_t i = home(hash);; i = (i + 1) & mask()) {
      if (slots_[i] == packed) {
        return true;
      }
      if (slots_[i] == 0) {
        return false;
      }
    }
  }

  // Asks the cache for the slot where a lookup of `hash` starts.
  void prefetch(std::uint64_t hash) const { __builtin_prefetch(&slots_[home(hash)], 1); }

  // Out of line: the scan's loop over a batch calls it on one of its two threads only.
  [[gnu::noinline]] void insert(const ResourceKey& key, std::uint64_t hash) {
    if ((size_ + 1) * 2 > slots_.size()) {
      grow();
    }
    if (place(pack(key), hash)) {
      ++size_;
    }
  }

 private:
  static constexpr std::size_t kInitialSlots = 1024;  // a power of two

  // Never 0 (the empty slot): the type is at least 1.
  static std::uint64_t pack(const ResourceKey& key) {
    return key.id | (std::uint64_t{key.type} << 56);
  }
  static ResourceKey unpack(std::uint64_t packed) {
    return {.id = packed & ((std::uint64_t{1} << 56) - 1),
            .type = static_cast<std::uint32_t>(packed >> 56)};
  }
  std::size_t mask() const { return slots_.size() - 1; }
  std::size_t home(std::uint64_t hash) const { return static_cast<std::size_t>(hash) & mask(); }

  // False when it was there already.
  bool place(std::uint64_t packed, std::uint64_t hash) {
    for (std::size_t i = home(hash);; i = (i + 1) & mask()) {
      if (slots_[i] == packed) {
        return false;
      }
      if (slots_[i] == 0) {
        slots_[i] = packed;
        return true;
      }
    }
  }

  void grow() {
    std::vector<std::uint64_t> old(slots_.size() * 2);
    old.swap(slots_);
    for (const std::uint64_t packed : old) {
      if (packed != 0) {
        place(packed, ResourceMap<int>::hash_with(unpack(packed), seed_));
      }
    }
  }

  std::uint64_t seed_;
  std::vector<std::uint64_t> slots_;
  std::size_t size_ = 0;
};

}  // namespace rtrace
