#include "model/backtrace_table.h"

#include <algorithm>

namespace rtrace {

BacktraceTable::BacktraceTable() : starts_{0, 0}, hashes_{hash({})}, slots_(1024, kEmpty) {
  slots_[hashes_[0] & (slots_.size() - 1)] = 0;
}

std::uint64_t BacktraceTable::hash(std::span<const Address> frames) {
  // 64-bit multiply-rotate mixing; return addresses are well spread, this only has to be quick.
  std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ frames.size();
  for (const Address a : frames) {
    h ^= a;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 31;
  }
  return h;
}

BacktraceId BacktraceTable::intern(std::span<const Address> frames) {
  const std::uint64_t h = hash(frames);
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = h & mask;; i = (i + 1) & mask) {
    const BacktraceId id = slots_[i];
    if (id == kEmpty) {
      break;
    }
    if (hashes_[id] == h && std::ranges::equal(this->frames(id), frames)) {
      return id;
    }
  }
  const auto id = static_cast<BacktraceId>(size());
  frames_.insert(frames_.end(), frames.begin(), frames.end());
  starts_.push_back(frames_.size());
  hashes_.push_back(h);
  if (size() * 2 > slots_.size()) {
    grow();
  } else {
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      if (slots_[i] == kEmpty) {
        slots_[i] = id;
        break;
      }
    }
  }
  return id;
}

void BacktraceTable::grow() {
  slots_.assign(slots_.size() * 2, kEmpty);
  const std::size_t mask = slots_.size() - 1;
  for (BacktraceId id = 0; id < size(); ++id) {
    std::size_t i = hashes_[id] & mask;
    while (slots_[i] != kEmpty) {
      i = (i + 1) & mask;
    }
    slots_[i] = id;
  }
}

}  // namespace rtrace
