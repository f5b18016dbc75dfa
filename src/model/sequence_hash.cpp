#include "model/sequence_hash.h"

namespace rtrace {
namespace {

// SplitMix64: spreads one secret word over as many key words as needed, each depending on all
// of its bits.
std::uint64_t next_key(std::uint64_t& state) {
  state += 0x9e3779b97f4a7c15ULL;
  std::uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

SequenceHash::SequenceHash(std::uint64_t seed) {
  std::uint64_t state = seed;
  for (std::uint64_t& key : keys_) {
    key = next_key(state);
  }
  for (std::uint64_t& key : chain_) {
    key = next_key(state);
  }
}

}  // namespace rtrace
