// The addresses of the live blocks whose allocation a sampled trace recorded (sample-bytes=N):
// a release is recorded only when its block is among them, so that a trace never holds the
// release of a block whose allocation it left out.
//
// Asked on every free, from every thread: 256 shards chosen by the address's hash, each an
// open-addressing table (linear probing, deletion by shifting back, no tombstones) under its own
// spin lock, held only for a probe; a shard with no block is answered without its lock. The
// tables live in mmap'ed memory, never the traced allocator's. With samples every 512 KiB a heap
// of 1 GiB holds about 2000 sampled blocks: the shards stay small and their locks uncontended.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace rtrace::tracer {

// Adds a block just allocated and recorded. False when no memory could be mapped for it (the
// caller then leaves the allocation out of the trace too).
bool remember_sampled(std::uintptr_t address);

namespace sampled_blocks_detail {

inline constexpr unsigned kShardBits = 8;
inline constexpr std::size_t kShards = std::size_t{1} << kShardBits;

inline std::uint64_t hash_of(std::uintptr_t address) {
  // Blocks are 16-byte aligned: the low bits carry nothing. Fibonacci hashing spreads the rest.
  return (static_cast<std::uint64_t>(address) >> 4) * 0x9e3779b97f4a7c15ULL;
}
// The hash's top bits choose the shard.
inline std::size_t shard_index(std::uintptr_t address) {
  return static_cast<std::size_t>(hash_of(address) >> (64 - kShardBits));
}
// The blocks each shard holds, apart from the shards (1 KiB that every free reads, changed only
// at a sampled allocation or release): an empty shard is answered without its lock.
extern std::atomic<std::uint32_t> g_shard_blocks[kShards];

bool forget_in_shard(std::uintptr_t address);

}  // namespace sampled_blocks_detail

// Removes `address` if it is there; true when it was (its release is then to be recorded). On
// every release of a sampled trace: inline up to the shard's count.
inline bool forget_sampled(std::uintptr_t address) {
  namespace detail = sampled_blocks_detail;
  // 0: free(NULL), never sampled (and the tables' mark of an empty slot). Its own block, if
  // sampled, was added by a call ordered before this release (the program handed the pointer
  // over): an empty shard holds no block of this address.
  if (address == 0 ||
      detail::g_shard_blocks[detail::shard_index(address)].load(std::memory_order_relaxed) == 0) {
    return false;
  }
  return detail::forget_in_shard(address);
}

// Keeps the locks consistent across fork (pthread_atfork): a child must not inherit a shard
// locked by a thread that does not exist in it. Called once, at the module's registration.
void protect_sampled_blocks_across_fork();

}  // namespace rtrace::tracer
