// The blocks mptrace knows about while it reads a trace, by allocation index.
//
// mptrace keeps every block it ever saw, so that a second free of an index is reported as such.
// Keeping them all would make memory grow with the file, so freed blocks are remembered only
// until kFreedWindow more blocks have been freed; past that, a repeated free reads as an unknown
// index. Live blocks are all kept (they are what the trace says is in use).
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>

namespace rtrace::mpatrol {

struct Allocation {
  std::uint64_t event = 0;  // event number of the allocation that created the entry
  std::uint64_t address = 0;
  std::uint64_t size = 0;
  std::uint64_t slot = 0;  // simulation program slot; 0 = none
  bool freed = false;
  std::uint64_t free_serial = 0;  // which free made it freed (see forget_old_frees)
};

class AllocationTable {
 public:
  static constexpr std::size_t kFreedWindow = 4096;

  AllocationTable() { blocks_.reserve(1024); }

  Allocation* find(std::uint64_t index) {
    const auto it = blocks_.find(index);
    return it == blocks_.end() ? nullptr : &it->second;
  }
  // The entry for `index`, created (zeroed) when it does not exist; `created` says which.
  Allocation& find_or_create(std::uint64_t index, bool& created) {
    const auto [it, inserted] = blocks_.try_emplace(index);
    created = inserted;
    return it->second;
  }
  void mark_freed(std::uint64_t index, Allocation& block) {
    block.freed = true;
    block.free_serial = ++frees_;
    freed_.push_back({index, block.free_serial});
    if (freed_.size() > kFreedWindow) {
      forget_oldest_free();
    }
  }

 private:
  struct FreedEntry {
    std::uint64_t index;
    std::uint64_t serial;
  };
  void forget_oldest_free() {
    const FreedEntry oldest = freed_.front();
    freed_.pop_front();
    const auto it = blocks_.find(oldest.index);
    // Allocated again since, or freed again since: that later state is still wanted.
    if (it != blocks_.end() && it->second.freed && it->second.free_serial == oldest.serial) {
      blocks_.erase(it);
    }
  }

  std::unordered_map<std::uint64_t, Allocation> blocks_;
  std::deque<FreedEntry> freed_;
  std::uint64_t frees_ = 0;
};

}  // namespace rtrace::mpatrol
