// The leaks scan's table of the blocks alive at the moment (leaks_scan.h), each with the slot of
// the call that made it (live_calls.h keeps the calls).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "filters/resource_map.h"
#include "formats/sprtrace_binary/leaks_scan/packed_key_set.h"
#include "model/records.h"
#include "model/seeded_hash.h"

namespace rtrace::leaks_scan {

// The allocations alive at the moment, each with its candidate slot, under the rule of
// filters/live_resources.h (kept in step with it): one ResourceMap (keyed with the process's secret
// seed, as every table of what a trace holds) per process of the scan, by the number it gives them.
class LiveTable {
 public:
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

  // The second half's table (LeaksScanSplit; one process, keys that PackedKeySet::fits()) also
  // keeps the keys of the blocks it released, so that it knows the releases of keys it never
  // saw: those end the first half's blocks when the halves are joined (what the second half did
  // first to a key decides: an allocation replaces a block, which leaked and is kept; a release
  // ends it).
  explicit LiveTable(bool keep_released = false)
      : keep_released_(keep_released), released_(seed_, 0) {}

  // With keep_released: room for about `expected` released keys (a guess, for the first size).
  // Called on the thread that fills the table: the table's pages (megabytes) are cleared there,
  // not on the thread that started it.
  void expect_released(std::size_t expected) { released_ = PackedKeySet(seed_, expected); }

  // The hash of a resource as the tables compute it: the parsing thread hashes each event's
  // key, so that the table's thread, the busier one, only looks it up.
  std::uint64_t hash(Address id, std::uint32_t type) const {
    return ResourceMap<Live>::hash_with({.id = id, .type = type}, seed_);
  }

  // Asks the cache for the slot where a lookup of this hash starts.
  // With keep_released, also the slot of the released keys where a release will note it.
  void prefetch(std::uint32_t process, std::uint64_t hash, bool alloc) {
    of(process).prefetch_hash(hash);
    if (keep_released_ && !alloc) {
      released_.prefetch(hash);
    }
  }

  // An allocation: where to store the new block's candidate, or nullptr when it only added a
  // reference to a live block of a refcounted type. `replaced` is the candidate of the live
  // block the new one replaces (that block leaked: the leaks stage keeps it), or kNone.
  std::uint32_t* allocate(Address id, std::uint32_t type, std::uint32_t process, bool refcounted,
                          std::uint64_t hash, std::uint32_t& replaced) {
    ResourceMap<Live>& blocks = of(process);
    const auto [position, added] = blocks.insert({.id = id, .type = type}, Live{}, hash);
    Live& live = blocks.at(position);
    if (!added && refcounted) {
      ++live.references;
      return nullptr;
    }
    replaced = live.candidate;
    live = Live{.candidate = kNone, .references = 1};
    return &live.candidate;
  }

  // A release: the candidate of the block it ends, or kNone (unknown, or references remain).
  [[gnu::always_inline]] std::uint32_t release(Address id, std::uint32_t type,
                                               std::uint32_t process, bool refcounted,
                                               std::uint64_t hash) {
    ResourceMap<Live>& blocks = of(process);
    const std::size_t position = blocks.find({.id = id, .type = type}, hash);
    if (position == ResourceMap<Live>::kNone) {
      // Never allocated here (else it would be alive or released): the first call of the key
      // (or one after such a first release: releasing again at the join does nothing).
      if (keep_released_) [[unlikely]] {
        note_unseen(process, {.id = id, .type = type}, hash);
      }
      return kNone;
    }
    Live& live = blocks.at(position);
    if (--live.references > 0 && refcounted) {
      return kNone;
    }
    const std::uint32_t candidate = live.candidate;
    blocks.erase_at(position);
    if (keep_released_) [[unlikely]] {
      released_.insert({.id = id, .type = type}, hash);
    }
    return candidate;
  }

  // Out of line: release() inlines into the loop over a batch.
  [[gnu::noinline]] void note_unseen(std::uint32_t process, const ResourceKey& key,
                                     std::uint64_t hash) {
    if (!released_.contains(key, hash)) {
      released_unseen_.push_back({process, key});
    }
  }

  // With keep_released: the keys whose first call was a release, with their processes.
  const std::vector<std::pair<std::uint32_t, ResourceKey>>& released_unseen() const {
    return released_unseen_;
  }

  // The candidate of every block alive, in no particular order.
  template <typename Visit>
  void for_each_candidate(Visit visit) const {
    for (const ResourceMap<Live>& blocks : processes_) {
      blocks.for_each([&](const ResourceKey&, const Live& live) { visit(live.candidate); });
    }
  }

 private:
  struct Live {
    std::uint32_t candidate = kNone;
    std::uint32_t references = 0;
  };

  ResourceMap<Live>& of(std::uint32_t process) {
    if (process >= count_) [[unlikely]] {
      add_up_to(process);
    }
    return processes_[process];
  }
  // Out of line: of() inlines into the loop over a batch.
  [[gnu::noinline]] void add_up_to(std::uint32_t process) {
    processes_.resize(std::size_t{process} + 1);
    count_ = processes_.size();
  }

  const std::uint64_t seed_ = hash_seed();  // read by both threads, never written
  const bool keep_released_;
  PackedKeySet released_;  // with keep_released_
  std::vector<std::pair<std::uint32_t, ResourceKey>> released_unseen_;
  std::vector<ResourceMap<Live>> processes_;
  std::size_t count_ = 0;  // processes_.size(), kept apart: it costs a division
};

}  // namespace rtrace::leaks_scan
