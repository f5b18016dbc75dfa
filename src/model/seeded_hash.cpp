#include "model/seeded_hash.h"

#include <random>

namespace rtrace {
namespace {

std::uint64_t draw_seed() {
  std::random_device device;  // getrandom() on Linux
  return (std::uint64_t{device()} << 32) ^ device();
}

}  // namespace

std::uint64_t hash_seed() {
  static const std::uint64_t seed = draw_seed();
  return seed;
}

}  // namespace rtrace
