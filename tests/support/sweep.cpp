#include "support/sweep.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>

namespace rtrace::test {

bool full_sweep() {
  const char* value = std::getenv("RTRACE_FULL_SWEEP");
  return value != nullptr && *value != '\0' && std::strcmp(value, "0") != 0;
}

std::vector<std::size_t> sweep(std::size_t begin, std::size_t end,
                               const std::vector<std::size_t>& always) {
  std::vector<std::size_t> points;
  if (end <= begin) {
    return points;
  }
  const std::size_t count = end - begin;
  if (full_sweep() || count <= 2 * kSweepEdge + kSweepSample) {
    points.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      points[i] = begin + i;
    }
    return points;
  }
  for (std::size_t i = 0; i < kSweepEdge; ++i) {
    points.push_back(begin + i);
    points.push_back(end - 1 - i);
  }
  for (const std::size_t point : always) {
    if (point >= begin && point < end) {
      points.push_back(point);
    }
  }
  // std::mt19937_64's output is fixed by the standard (unlike the distributions'): the same
  // sample with every standard library.
  std::mt19937_64 random(count);
  for (std::size_t i = 0; i < kSweepSample; ++i) {
    points.push_back(begin + random() % count);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  return points;
}

std::vector<std::size_t> sweep(std::size_t begin, std::size_t end,
                               std::initializer_list<std::size_t> always) {
  return sweep(begin, end, std::vector<std::size_t>(always));
}

}  // namespace rtrace::test
