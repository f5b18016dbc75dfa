// The limit that stops decompression bombs: a small compressed file that expands to an enormous
// stream (zstd reaches ratios of many thousands to one; real traces compress by about 5 to 50).
//
// Decompressed data may be at most `ratio` times as large as the compressed data read so far;
// the first kFreeBytes are always allowed, so small inputs are never refused. The ratio is 1000
// unless the environment variable RTRACE_MAX_RATIO sets another (0: no limit).
#pragma once

#include <cstdint>
#include <string>

namespace rtrace {

class DecompressionLimit {
 public:
  static constexpr std::uint64_t kDefaultRatio = 1000;
  static constexpr std::uint64_t kFreeBytes = std::uint64_t{64} << 20;

  // The limit from RTRACE_MAX_RATIO (an unreadable value keeps the default).
  DecompressionLimit();
  explicit DecompressionLimit(std::uint64_t ratio) : ratio_(ratio) {}

  bool exceeded(std::uint64_t compressed, std::uint64_t decompressed) const;
  // The message for exceeded(): names the limit and how to raise it.
  std::string describe(const char* format) const;

 private:
  std::uint64_t ratio_;
};

}  // namespace rtrace
