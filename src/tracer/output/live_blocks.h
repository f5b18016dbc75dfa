// The blocks of memory the traced program has allocated and not released, for the leak check
// (leak-check=1, session/leak_check.h). Kept by the single ordered writer as it transcodes the
// calls (compact_transcoder.cpp), so that the program's threads pay nothing for it and the table
// sees every allocation and release in the trace's own order (an address released by one thread
// and returned to another is never live twice). An open-addressing table in mmap'd memory, never
// the traced allocator; it grows by doubling up to kMaxLiveBlocks, past which it stops and the
// leak check says so instead of guessing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "protocol/compact_encoder.h"

namespace rtrace::tracer {

// The most blocks the table holds (its slots then take 512 MiB).
inline constexpr std::size_t kMaxLiveBlocks = std::size_t{1} << 24;

struct LiveBlock {
  std::uint64_t address = 0;
  std::uint64_t size = 0;
};

// On for this process's traces (the option); off, the writer's only cost is one test a call.
void live_blocks_enable(bool on);
bool live_blocks_enabled();
// Forgets every block (a new trace starts).
void live_blocks_clear();
// A resource type of the trace: the one named "memory" is the one whose blocks are kept.
void live_blocks_resource(std::uint32_t id, compact::Text name);
// Applies a call: an allocation of memory adds its block, a release removes it.
void live_blocks_apply_call(const compact::CallFields& call);
inline void live_blocks_apply(const compact::CallFields& call) {
  if (live_blocks_enabled()) {
    live_blocks_apply_call(call);
  }
}
// True when the table had to drop blocks (more than kMaxLiveBlocks, or no memory to grow).
bool live_blocks_overflowed();
std::size_t live_blocks_count();
// Copies the blocks into `out` (room for `capacity`), in no order; returns how many.
std::size_t live_blocks_copy(LiveBlock* out, std::size_t capacity);

}  // namespace rtrace::tracer
