#include "tracer/modules/memory/sampled_blocks.h"

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>

#include <atomic>
#include <cstddef>

namespace rtrace::tracer {
namespace sampled_blocks_detail {

std::atomic<std::uint32_t> g_shard_blocks[kShards];

}  // namespace sampled_blocks_detail

namespace {

using sampled_blocks_detail::g_shard_blocks;
using sampled_blocks_detail::hash_of;
using sampled_blocks_detail::kShardBits;
using sampled_blocks_detail::kShards;
using sampled_blocks_detail::shard_index;

constexpr std::size_t kFirstCapacity = 4096 / sizeof(std::uintptr_t);  // one page
constexpr std::uintptr_t kEmpty = 0;  // no block lives at address 0

// One shard; a cache line of its own so that two threads' shards never share one.
struct alignas(64) Shard {
  std::atomic<bool> locked{false};
  std::size_t count = 0;
  std::uintptr_t* slots = nullptr;
  std::size_t capacity = 0;  // a power of two

  void lock() {
    while (locked.exchange(true, std::memory_order_acquire)) {
      while (locked.load(std::memory_order_relaxed)) {
        ::sched_yield();
      }
    }
  }
  void unlock() { locked.store(false, std::memory_order_release); }

  std::size_t home(std::uintptr_t address) const {
    // The hash's top bits chose the shard; the ones below them choose the slot.
    return static_cast<std::size_t>(hash_of(address) >> (64 - kShardBits - 32)) & (capacity - 1);
  }

  void place(std::uintptr_t address) {
    std::size_t slot = home(address);
    while (slots[slot] != kEmpty) {
      slot = (slot + 1) & (capacity - 1);
    }
    slots[slot] = address;
  }

  // Doubles the table (or makes the first one) when it would be more than half full.
  bool make_room() {
    if ((count + 1) * 2 <= capacity) {
      return true;
    }
    const std::size_t grown = capacity == 0 ? kFirstCapacity : capacity * 2;
    void* memory = ::mmap(nullptr, grown * sizeof(std::uintptr_t), PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) {
      return false;
    }
    std::uintptr_t* old = slots;
    const std::size_t old_capacity = capacity;
    slots = static_cast<std::uintptr_t*>(memory);  // zeroed: every slot empty
    capacity = grown;
    for (std::size_t i = 0; i < old_capacity; ++i) {
      if (old[i] != kEmpty) {
        place(old[i]);
      }
    }
    if (old != nullptr) {
      ::munmap(old, old_capacity * sizeof(std::uintptr_t));
    }
    return true;
  }

  bool insert(std::uintptr_t address) {
    if (!make_room()) {
      return false;
    }
    place(address);
    ++count;
    return true;
  }

  bool erase(std::uintptr_t address) {
    if (capacity == 0) {
      return false;
    }
    std::size_t slot = home(address);
    while (slots[slot] != address) {
      if (slots[slot] == kEmpty) {
        return false;
      }
      slot = (slot + 1) & (capacity - 1);
    }
    // Shift back the entries after it whose home lies at or before the hole, so that every
    // entry stays reachable from its home without an empty slot in between.
    std::size_t hole = slot;
    for (std::size_t next = (hole + 1) & (capacity - 1); slots[next] != kEmpty;
         next = (next + 1) & (capacity - 1)) {
      const std::size_t wanted = home(slots[next]);
      const bool movable =
          hole <= next ? (wanted <= hole || wanted > next) : (wanted <= hole && wanted > next);
      if (movable) {
        slots[hole] = slots[next];
        hole = next;
      }
    }
    slots[hole] = kEmpty;
    --count;
    return true;
  }
};

Shard g_shards[kShards];

Shard& shard_of(std::uintptr_t address) {
  return g_shards[shard_index(address)];
}

void lock_all() {
  for (Shard& shard : g_shards) {
    shard.lock();
  }
}

void unlock_all() {
  for (Shard& shard : g_shards) {
    shard.unlock();
  }
}

}  // namespace

bool remember_sampled(std::uintptr_t address) {
  Shard& shard = shard_of(address);
  shard.lock();
  const bool added = shard.insert(address);
  g_shard_blocks[shard_index(address)].store(static_cast<std::uint32_t>(shard.count),
                                             std::memory_order_relaxed);
  shard.unlock();
  return added;
}

namespace sampled_blocks_detail {

bool forget_in_shard(std::uintptr_t address) {
  Shard& shard = shard_of(address);
  shard.lock();
  const bool removed = shard.erase(address);
  g_shard_blocks[shard_index(address)].store(static_cast<std::uint32_t>(shard.count),
                                             std::memory_order_relaxed);
  shard.unlock();
  return removed;
}

}  // namespace sampled_blocks_detail

void protect_sampled_blocks_across_fork() {
  ::pthread_atfork(lock_all, unlock_all, unlock_all);
}

}  // namespace rtrace::tracer
