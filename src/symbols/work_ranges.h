// Hands out pieces of work, numbered 0 to count - 1, to a few threads. Each thread starts on its
// own contiguous range; one that has finished takes the back half of the largest range left. So
// neighbouring pieces (a file's compile units, in order) mostly go to one thread, which then
// reads that file's tables alone, and no thread waits while another has work left.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <vector>

namespace rtrace::symbols {

class WorkRanges {
 public:
  // Thread t starts on [starts[t], starts[t + 1]) (the last one on [starts.back(), count));
  // `starts` must be sorted and at most `count`.
  WorkRanges(const std::vector<std::size_t>& starts, std::size_t count);

  // The next piece for `thread`, or none when every piece has been handed out.
  std::optional<std::size_t> next(std::size_t thread);

 private:
  struct Range {
    std::size_t begin = 0;
    std::size_t end = 0;
  };

  std::mutex mutex_;
  std::vector<Range> ranges_;  // by thread: the pieces not handed out yet
};

}  // namespace rtrace::symbols
