// Slots of the pointer array in the C simulation program mptrace writes (--sim-file): a block
// takes a slot while it is allocated. As in mptrace, slots are numbered from 1, a new block takes
// the slot freed last, and fresh slots come in increasing order when none is free. (mptrace stops
// at 4096 blocks in use; this table has no limit.)
#pragma once

#include <cstdint>
#include <vector>

namespace rtrace::mpatrol {

class SimSlots {
 public:
  std::uint64_t take() {
    if (free_.empty()) {
      return ++used_;
    }
    const std::uint64_t slot = free_.back();
    free_.pop_back();
    return slot;
  }
  void release(std::uint64_t slot) { free_.push_back(slot); }

 private:
  std::vector<std::uint64_t> free_;
  std::uint64_t used_ = 0;
};

}  // namespace rtrace::mpatrol
