// The blocks mptrace knows about while it reads a trace, by allocation index.
//
// mptrace keeps every block it ever saw, so that a second free of an index is reported as such.
// Keeping them all would make memory grow with the file, so freed blocks are remembered only
// until kFreedWindow more blocks have been freed; past that, a repeated free reads as an unknown
// index. Live blocks are all kept (they are what the trace says is in use).
//
// The table is an open-addressing hash table with linear probing (a lookup per event is the
// hot path of `rtrace mptrace`), deleting by shifting back the entries that follow.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

namespace rtrace::mpatrol {

struct Allocation {
  std::uint64_t event = 0;  // event number of the allocation that created the entry
  std::uint64_t address = 0;
  std::uint64_t size = 0;
  std::uint64_t slot = 0;  // simulation program slot; 0 = none
  bool freed = false;
  std::uint64_t free_serial = 0;  // which free made it freed (see forget_oldest_free)
};

class AllocationTable {
 public:
  static constexpr std::size_t kFreedWindow = 4096;

  AllocationTable() : entries_(kInitialCapacity) {}

  Allocation* find(std::uint64_t index) {
    for (std::size_t i = home(index);; i = next(i)) {
      Entry& e = entries_[i];
      if (!e.used) {
        return nullptr;
      }
      if (e.index == index) {
        return &e.block;
      }
    }
  }

  // The entry for `index`, created (zeroed) when it does not exist; `created` says which. The
  // reference stays valid until the next call that creates or forgets an entry.
  Allocation& find_or_create(std::uint64_t index, bool& created) {
    if ((count_ + 1) * 2 > entries_.size()) {  // at most half full: short probe runs
      grow();
    }
    std::size_t i = home(index);
    for (; entries_[i].used; i = next(i)) {
      if (entries_[i].index == index) {
        created = false;
        return entries_[i].block;
      }
    }
    entries_[i] = Entry{.used = true, .index = index, .block = {}};
    ++count_;
    created = true;
    return entries_[i].block;
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
  static constexpr std::size_t kInitialCapacity = 1024;  // a power of two

  struct Entry {
    bool used = false;
    std::uint64_t index = 0;
    Allocation block;
  };
  struct FreedEntry {
    std::uint64_t index;
    std::uint64_t serial;
  };

  std::size_t home(std::uint64_t index) const {
    // Fibonacci hashing: indices are consecutive numbers, spread them over the table.
    return static_cast<std::size_t>((index * 0x9E3779B97F4A7C15ULL) >> 32) & (entries_.size() - 1);
  }
  std::size_t next(std::size_t i) const { return (i + 1) & (entries_.size() - 1); }

  void grow() {
    std::vector<Entry> old(entries_.size() * 2);
    old.swap(entries_);
    count_ = 0;
    for (const Entry& e : old) {
      if (e.used) {
        bool created = false;
        find_or_create(e.index, created) = e.block;
      }
    }
  }

  void forget_oldest_free() {
    const FreedEntry oldest = freed_.front();
    freed_.pop_front();
    const Allocation* block = find(oldest.index);
    // Allocated again since, or freed again since: that later state is still wanted.
    if (block != nullptr && block->freed && block->free_serial == oldest.serial) {
      erase(oldest.index);
    }
  }

  // Linear probing deletion: move later entries of the same probe run back into the hole.
  void erase(std::uint64_t index) {
    std::size_t hole = home(index);
    while (entries_[hole].index != index || !entries_[hole].used) {
      hole = next(hole);
    }
    for (std::size_t i = next(hole); entries_[i].used; i = next(i)) {
      const std::size_t want = home(entries_[i].index);
      // Entry i may move into the hole when its home is not within (hole, i].
      const bool between = hole <= i ? (hole < want && want <= i) : (hole < want || want <= i);
      if (!between) {
        entries_[hole] = entries_[i];
        hole = i;
      }
    }
    entries_[hole] = Entry{};
    --count_;
  }

  std::vector<Entry> entries_;
  std::size_t count_ = 0;
  std::deque<FreedEntry> freed_;
  std::uint64_t frees_ = 0;
};

}  // namespace rtrace::mpatrol
