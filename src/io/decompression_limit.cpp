#include "io/decompression_limit.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <cstring>

namespace rtrace {
namespace {

std::uint64_t ratio_from_environment() {
  const char* text = std::getenv("RTRACE_MAX_RATIO");
  if (text == nullptr) {
    return DecompressionLimit::kDefaultRatio;
  }
  std::uint64_t ratio = 0;
  const char* end = text + std::strlen(text);
  const auto [stop, error] = std::from_chars(text, end, ratio);
  return error == std::errc{} && stop == end && stop != text ? ratio
                                                             : DecompressionLimit::kDefaultRatio;
}

}  // namespace

DecompressionLimit::DecompressionLimit() : ratio_(ratio_from_environment()) {}

bool DecompressionLimit::exceeded(std::uint64_t compressed, std::uint64_t decompressed) const {
  if (ratio_ == 0 || decompressed <= kFreeBytes) {
    return false;
  }
  // decompressed / compressed > ratio, without overflowing the product.
  return compressed == 0 || decompressed / compressed >= ratio_;
}

std::string DecompressionLimit::describe(const char* format) const {
  return fmt::format(
      "{} data expands to more than {} times its compressed size (a decompression bomb?); "
      "stopped there. Set RTRACE_MAX_RATIO to raise the limit (0: no limit)",
      format, ratio_);
}

}  // namespace rtrace
