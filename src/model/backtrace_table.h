// Interned backtraces: each distinct sequence of return addresses is stored once.
//
// Real traces repeat the same few thousand stacks millions of times; a stage that keeps calls
// keeps a BacktraceId per call. Lookup hashes the frames and compares them once on a hit.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model/records.h"

namespace rtrace {

using BacktraceId = std::uint32_t;

class BacktraceTable {
 public:
  BacktraceTable();

  // The id of `frames`, adding it when new. The empty backtrace always has id 0.
  BacktraceId intern(std::span<const Address> frames);
  std::span<const Address> frames(BacktraceId id) const {
    return {frames_.data() + starts_[id], frames_.data() + starts_[id + 1]};
  }
  std::size_t size() const { return starts_.size() - 1; }

 private:
  static std::uint64_t hash(std::span<const Address> frames);
  void grow();

  std::vector<Address> frames_;        // all backtraces, one after another
  std::vector<std::uint64_t> starts_;  // id -> offset in frames_; one extra entry at the end
  std::vector<std::uint64_t> hashes_;  // id -> hash
  std::vector<BacktraceId> slots_;     // open addressing; kEmpty or an id
  static constexpr BacktraceId kEmpty = ~BacktraceId{0};
};

}  // namespace rtrace
