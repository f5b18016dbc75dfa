// Reads the primitive encodings of the apitrace stream from a buffered span of it.
//
// The decoder parses one whole event from the bytes it has buffered. When the event goes on past
// them, the cursor throws NeedMore with how many bytes (from the start of the span) would be
// enough; the decoder buffers more and parses the event again from its start.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

namespace rtrace::apitrace {

struct NeedMore {
  std::size_t wanted = 0;  // bytes from the start of the span
  // True when a length or count read from the stream asked for these bytes: if the input ends
  // first, the length is wrong (or the file cut), and that is an error rather than a clean end.
  bool for_length = false;
  std::uint64_t length = 0;  // that length or count
};

class ByteCursor {
 public:
  explicit ByteCursor(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}

  std::size_t position() const { return pos_; }
  std::size_t left() const { return bytes_.size() - pos_; }

  std::uint8_t byte() {
    if (pos_ >= bytes_.size()) {
      throw NeedMore{pos_ + 1};
    }
    return bytes_[pos_++];
  }

  // LEB128: 7 bits per byte, least significant first, high bit = more follows.
  std::uint64_t uint() {
    std::uint64_t value = 0;
    unsigned shift = 0;
    for (;;) {
      if (pos_ >= bytes_.size()) {
        throw NeedMore{pos_ + 1};
      }
      const std::uint8_t c = bytes_[pos_++];
      if (shift < 64) {
        value |= static_cast<std::uint64_t>(c & 0x7f) << shift;
      }
      shift += 7;
      if ((c & 0x80) == 0) {
        return value;
      }
    }
  }

  // A count of items that take at least one byte each: checked against what is buffered before
  // anything is sized by it.
  std::uint64_t count() {
    const std::uint64_t n = uint();
    require(n);
    return n;
  }

  // `n` raw bytes (a string or blob body), checked against what is buffered.
  std::string_view bytes(std::uint64_t n) {
    require(n);
    const char* start = reinterpret_cast<const char*>(bytes_.data() + pos_);
    pos_ += static_cast<std::size_t>(n);
    return {start, static_cast<std::size_t>(n)};
  }

  std::string_view string() { return bytes(uint()); }

  template <typename T>
  T raw() {
    if (left() < sizeof(T)) {
      throw NeedMore{pos_ + sizeof(T)};
    }
    T value;
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }

 private:
  void require(std::uint64_t n) const {
    if (n > left()) {
      const std::uint64_t wanted = pos_ + n;
      throw NeedMore{wanted > SIZE_MAX ? SIZE_MAX : static_cast<std::size_t>(wanted), true, n};
    }
  }

  std::span<const std::uint8_t> bytes_;
  std::size_t pos_ = 0;
};

}  // namespace rtrace::apitrace
