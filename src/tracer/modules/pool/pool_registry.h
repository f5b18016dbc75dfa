// What the pool module remembers between two calls of the custom allocator API: the name of each
// live pool, and which pool every recorded block belongs to, so that destroying a pool releases
// the blocks still in it. Static tables only (the tracer never allocates through the traced
// allocator); every function takes the module's lock itself.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rtrace::tracer {

// The name the trace gives the allocations of a pool that was never created, or created without
// a name (valgrind's CREATE_MEMPOOL has none).
inline constexpr const char* kDefaultPoolName = "mempool";

// Remembers `pool` under `name` (NULL: kDefaultPoolName); creating a live pool again renames it.
void remember_pool(std::uintptr_t pool, const char* name);
// The name of `pool`: a string that stays valid as long as the library is loaded (the trace
// keeps call names by address until it is written), kDefaultPoolName for an unknown pool.
const char* pool_name(std::uintptr_t pool);
// Forgets `pool` (its name stays valid).
void forget_pool(std::uintptr_t pool);

// `block` was recorded as an allocation of `pool`. When the table is full (more than a quarter
// of a million live blocks) the block is not remembered: destroying its pool does not release it.
void remember_block(std::uintptr_t block, std::uintptr_t pool);
// Forgets `block`, whichever pool it was in.
void forget_block(std::uintptr_t block);
// Forgets up to `capacity` blocks of `pool` and writes them into `blocks`; returns how many.
// Called until it returns 0.
std::size_t take_blocks(std::uintptr_t pool, std::uintptr_t* blocks, std::size_t capacity);

}  // namespace rtrace::tracer
