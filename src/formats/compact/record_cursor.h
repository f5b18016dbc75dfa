// Bounds-checked decoding of the fields of one compact record's payload. Every read checks what
// is left of the payload first, so no hostile length or count makes the reader look past it.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>

#include "protocol/compact_protocol.h"

namespace rtrace::compact {

// A record whose fields do not fit in it, or hold impossible values. `offset`: the record's
// byte offset in the input.
struct CorruptRecord {
  std::uint64_t offset;
  std::string message;
};

class RecordCursor {
 public:
  RecordCursor(std::span<const std::uint8_t> payload, std::uint64_t record_offset)
      : pos_(payload.data()), end_(payload.data() + payload.size()), offset_(record_offset) {}

  std::size_t remaining() const { return static_cast<std::size_t>(end_ - pos_); }
  std::uint64_t record_offset() const { return offset_; }

  std::uint8_t byte(const char* what) {
    need(1, what);
    return *pos_++;
  }

  // Most fields of a call are one byte: that case stays inline, the rest is out of the way.
  std::uint64_t varint(const char* what) {
    if (pos_ != end_ && *pos_ < 0x80) {
      return *pos_++;
    }
    return long_varint(what);
  }

  std::uint32_t u32(const char* what) {
    const std::uint64_t value = varint(what);
    if (value > std::numeric_limits<std::uint32_t>::max()) {
      fail(std::string(what) + " " + std::to_string(value) + " out of range");
    }
    return static_cast<std::uint32_t>(value);
  }

  std::string_view string(const char* what) {
    const std::uint64_t length = varint(what);
    if (length > remaining()) {
      fail(std::string("record too short for ") + what);
    }
    const std::string_view text(reinterpret_cast<const char*>(pos_), length);
    pos_ += length;
    return text;
  }

  [[noreturn]] void fail(std::string message) const {
    throw CorruptRecord{offset_, std::move(message)};
  }

 private:
  [[gnu::noinline]] std::uint64_t long_varint(const char* what) {
    std::uint64_t value = 0;
    for (unsigned shift = 0;; shift += 7) {
      need(1, what);
      const std::uint8_t b = *pos_++;
      if (shift == 63 && b > 1) {
        fail(std::string("malformed number in ") + what);
      }
      value |= std::uint64_t{b & 0x7Fu} << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
    }
  }

  void need(std::size_t n, const char* what) const {
    if (remaining() < n) {
      fail(std::string("record too short for ") + what);
    }
  }

  const std::uint8_t* pos_;
  const std::uint8_t* end_;
  std::uint64_t offset_;
};

}  // namespace rtrace::compact
