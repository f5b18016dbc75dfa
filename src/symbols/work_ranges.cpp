#include "symbols/work_ranges.h"

#include <algorithm>

namespace rtrace::symbols {

WorkRanges::WorkRanges(const std::vector<std::size_t>& starts, std::size_t count) {
  for (std::size_t thread = 0; thread < starts.size(); ++thread) {
    const std::size_t end = thread + 1 < starts.size() ? starts[thread + 1] : count;
    ranges_.push_back({std::min(starts[thread], end), end});
  }
}

std::optional<std::size_t> WorkRanges::next(std::size_t thread) {
  const std::lock_guard<std::mutex> lock(mutex_);
  Range& own = ranges_.at(thread);
  if (own.begin == own.end) {
    const auto size = [](const Range& range) { return range.end - range.begin; };
    Range& largest =
        *std::max_element(ranges_.begin(), ranges_.end(),
                          [&](const Range& a, const Range& b) { return size(a) < size(b); });
    if (size(largest) == 0) {
      return std::nullopt;
    }
    // The back half: its owner keeps going from the front, away from the pieces taken here.
    const std::size_t middle = largest.begin + size(largest) / 2;
    own = {middle, largest.end};
    largest.end = middle;
  }
  return own.begin++;
}

}  // namespace rtrace::symbols
