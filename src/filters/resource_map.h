// A hash map from live resources (resource type, resource id) to a small value.
//
// The leaks stage and the report look up every allocation and release of a trace here, millions
// of times, so this is an open-addressing table (linear probing, backward-shift deletion, at
// most half full) with no allocation per entry; its memory follows the number of resources
// alive at once. Each operation probes the table once: a lookup returns a position that the
// caller then reads, updates or erases. Resource ids come from the trace, so slots are chosen by
// a hash keyed with the process's secret seed (seeded_hash.h): a crafted trace cannot pile its
// resources into one probe run.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "model/records.h"
#include "model/seeded_hash.h"

namespace rtrace {

struct ResourceKey {
  Address id = 0;
  std::uint32_t type = 0;

  friend bool operator==(const ResourceKey&, const ResourceKey&) = default;
};

// `Value` must be small and trivially copyable.
template <typename Value>
class ResourceMap {
 public:
  static constexpr std::size_t kNone = ~std::size_t{0};

  ResourceMap() : seed_(hash_seed()), slots_(kInitialSlots) {}

  // The position of `key`, or kNone.
  std::size_t find(const ResourceKey& key) const { return find(key, hash(key)); }

  // The same with the key's hash(), for a caller that computed it ahead (to prefetch its slot).
  std::size_t find(const ResourceKey& key, std::uint64_t key_hash) const {
    for (std::size_t i = home_of(key_hash);; i = next(i)) {
      const Slot& slot = slots_[i];
      if (slot.tag == 0) {
        return kNone;
      }
      if (slot.id == key.id && slot.type == key.type) {
        return i;
      }
    }
  }

  // The position of `key`, adding it with `value` when absent; `second` says whether it was.
  std::pair<std::size_t, bool> insert(const ResourceKey& key, Value value) {
    return insert(key, value, hash(key));
  }

  // The same with the key's hash().
  std::pair<std::size_t, bool> insert(const ResourceKey& key, Value value, std::uint64_t key_hash) {
    if ((size_ + 1) * 2 > mask_ + 1) {
      grow();
    }
    for (std::size_t i = home_of(key_hash);; i = next(i)) {
      Slot& slot = slots_[i];
      if (slot.tag == 0) {
        slot = Slot{.id = key.id, .type = key.type, .tag = tag_of(key_hash), .value = value};
        ++size_;
        return {i, true};
      }
      if (slot.id == key.id && slot.type == key.type) {
        return {i, false};
      }
    }
  }

  // Asks the cache for the slot where a lookup of `key` starts, for a caller that knows its
  // next keys ahead (the leaks scan, a batch of calls at a time).
  void prefetch(const ResourceKey& key) const { prefetch_hash(hash(key)); }
  void prefetch_hash(std::uint64_t key_hash) const {
    __builtin_prefetch(&slots_[home_of(key_hash)]);
  }

  // The key's hash, whatever the table's size: computed once, it serves prefetch_hash(), then
  // find() or insert(), even when the table grows between them.
  std::uint64_t hash(const ResourceKey& key) const { return hash_with(key, seed_); }

  // What hash() gives with the process's seed as `seed` (every ResourceMap is seeded with
  // hash_seed()): for a caller that hashes its keys on another thread than the table's.
  static std::uint64_t hash_with(const ResourceKey& key, std::uint64_t seed) {
    const std::uint64_t words[2] = {key.id, key.type};
    return seeded_hash(words, sizeof(words), seed);
  }

  Value& at(std::size_t position) { return slots_[position].value; }
  const Value& at(std::size_t position) const { return slots_[position].value; }

  void erase_at(std::size_t hole) {
    // Backward-shift: move later members of the probe run into the hole so that lookups never
    // need tombstones.
    for (std::size_t i = next(hole);; i = next(i)) {
      Slot& slot = slots_[i];
      if (slot.tag == 0) {
        break;
      }
      const std::size_t want = home_of_slot(slot);
      const bool movable = hole <= i ? (want <= hole || want > i) : (want <= hole && want > i);
      if (movable) {
        slots_[hole] = slot;
        hole = i;
      }
    }
    slots_[hole].tag = 0;
    --size_;
  }

  std::size_t size() const { return size_; }

  // How many slots past its home slot the farthest entry sits: small for any input when the
  // hash does its job (tests hold a crafted set of ids to it).
  std::size_t longest_probe() const {
    std::size_t longest = 0;
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      if (slots_[i].tag != 0) {
        const std::size_t want = home({.id = slots_[i].id, .type = slots_[i].type});
        longest = std::max(longest, (i - want) & (slots_.size() - 1));
      }
    }
    return longest;
  }

  template <typename Visit>
  void for_each(Visit visit) const {
    for (const Slot& slot : slots_) {
      if (slot.tag != 0) {
        visit(ResourceKey{.id = slot.id, .type = slot.type}, slot.value);
      }
    }
  }

 private:
  struct Slot {
    Address id = 0;
    std::uint32_t type = 0;
    // 0 for a free slot; else the top 24 bits of the key's hash and a low bit of 1: where the
    // key belongs, without hashing it again, when a deletion or a growth moves it (in a table of
    // up to 2^24 slots). In the bytes a bool and padding took: a slot is no larger.
    std::uint32_t tag = 0;
    Value value{};
  };
  static constexpr int kInitialBits = 10;
  static constexpr std::size_t kInitialSlots = std::size_t{1} << kInitialBits;

  std::size_t home(const ResourceKey& key) const { return home_of(hash(key)); }
  std::size_t home_of(std::uint64_t key_hash) const {
    return static_cast<std::size_t>(key_hash >> shift_);
  }
  std::size_t next(std::size_t i) const { return (i + 1) & mask_; }

  static constexpr int kTagBits = 24;
  static std::uint32_t tag_of(std::uint64_t key_hash) {
    return static_cast<std::uint32_t>(key_hash >> (64 - kTagBits)) << 8 | 1;
  }
  // home() of a slot's key: from its tag while the table has at most 2^kTagBits slots.
  std::size_t home_of_slot(const Slot& slot) const {
    if (shift_ >= 64 - kTagBits) {
      return static_cast<std::size_t>((slot.tag >> 8) >> (shift_ - (64 - kTagBits)));
    }
    return home({.id = slot.id, .type = slot.type});
  }

  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    --shift_;
    mask_ = slots_.size() - 1;
    for (const Slot& slot : old) {  // every key is distinct: each goes to the first free slot
      if (slot.tag != 0) {
        std::size_t i = home_of_slot(slot);
        while (slots_[i].tag != 0) {
          i = next(i);
        }
        slots_[i] = slot;
      }
    }
  }

  std::uint64_t seed_;
  std::vector<Slot> slots_;
  std::size_t size_ = 0;
  int shift_ = 64 - kInitialBits;
  // slots_.size() - 1, kept apart: the size of a vector of 24-byte slots costs a division.
  std::size_t mask_ = kInitialSlots - 1;
};

}  // namespace rtrace
