// Hashes of values a trace controls, keyed with a secret drawn once per process.
//
// Hash tables keyed by what a trace holds (return addresses, resource ids, symbol ids) are open
// to hash flooding: with a fixed hash function a crafted trace can put all its keys in one probe
// run and turn every lookup into a walk of the table (the leaks stage 40 times, grouping by
// backtrace 50 times slower). XXH3 keyed with a random seed makes the slots unpredictable to
// whoever wrote the trace. (xxhash comes from Debian's libxxhash-dev; its functions are inlined
// from the header, as the hot paths hash a few bytes at a time.)
#pragma once

#include <cstddef>
#include <cstdint>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace rtrace {

// The process's secret hash seed: random, drawn at the first call.
std::uint64_t hash_seed();

inline std::uint64_t seeded_hash(const void* data, std::size_t size, std::uint64_t seed) {
  return XXH3_64bits_withSeed(data, size, seed);
}

}  // namespace rtrace
