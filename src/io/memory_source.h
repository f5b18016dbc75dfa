// Bytes already in memory as a ByteSource: for fuzzers and tests, which hand readers an input
// they made themselves.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <utility>

#include "io/byte_source.h"

namespace rtrace {

class MemorySource final : public ByteSource {
 public:
  // Hands out `bytes` in pieces of at most `piece` bytes (small pieces exercise the readers'
  // buffer refills).
  explicit MemorySource(std::string bytes, std::size_t piece = kWhole)
      : bytes_(std::move(bytes)), piece_(std::max<std::size_t>(piece, 1)) {}
  MemorySource(std::span<const std::uint8_t> bytes, std::size_t piece = kWhole)
      : MemorySource(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                     piece) {}

  std::size_t read(std::span<std::uint8_t> buffer) override {
    const std::size_t n = std::min({buffer.size(), bytes_.size() - at_, piece_});
    if (n != 0) {  // a null data() with n == 0 is not for memcpy
      std::memcpy(buffer.data(), bytes_.data() + at_, n);
    }
    at_ += n;
    return n;
  }

 private:
  static constexpr std::size_t kWhole = ~std::size_t{0};

  std::string bytes_;
  std::size_t piece_;
  std::size_t at_ = 0;
};

}  // namespace rtrace
