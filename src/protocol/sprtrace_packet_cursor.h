// Bounds-checked decoding of the fields of one binary packet, in the trace's byte order and
// pointer size. Every read checks what is left of the packet first, so a hostile size or length
// can never make the reader look past the packet. For rtrace's tools, not the tracer: a field
// that does not fit throws CorruptPacket.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "protocol/byte_loads.h"
#include "protocol/sprtrace_framing.h"

namespace rtrace::sprtrace {

// A packet whose fields do not fit in it, or that holds impossible values. `offset` is the byte
// offset of the packet in the input.
struct CorruptPacket {
  std::uint64_t offset;
  std::string message;
};

class PacketCursor {
 public:
  PacketCursor(std::span<const std::uint8_t> data, Layout layout, std::uint64_t packet_offset)
      : begin_(data.data()),
        pos_(data.data()),
        end_(data.data() + data.size()),
        layout_(layout),
        offset_(packet_offset) {}

  std::size_t size() const { return static_cast<std::size_t>(end_ - begin_); }
  std::size_t remaining() const { return static_cast<std::size_t>(end_ - pos_); }
  std::uint64_t packet_offset() const { return offset_; }

  std::uint32_t dword() {
    need(4, "a 32-bit field");
    const std::uint32_t v = load_u32(pos_, layout_.swap);
    pos_ += 4;
    return v;
  }

  std::uint64_t qword() {
    need(8, "a 64-bit field");
    const std::uint64_t v = load_u64(pos_, layout_.swap);
    pos_ += 8;
    return v;
  }

  std::uint64_t pointer() {
    need(layout_.pointer_size, "a pointer");
    const std::uint64_t v =
        layout_.pointer_size == 8 ? load_u64(pos_, layout_.swap) : load_u32(pos_, layout_.swap);
    pos_ += layout_.pointer_size;
    return v;
  }

  // A 16-bit length, then that many bytes; the text ends at the first NUL. The next field starts
  // on the next 4-byte boundary of the packet, which covers both the padded length the tracer
  // writes and the older NULL string (length 0 followed by two NUL bytes).
  std::string_view string() {
    need(2, "a string length");
    const std::size_t length = load_u16(pos_, layout_.swap);
    need(2 + length, "a string");
    const char* text = reinterpret_cast<const char*>(pos_ + 2);
    const void* nul = std::memchr(text, 0, length);
    const std::size_t text_length =
        nul != nullptr ? static_cast<std::size_t>(static_cast<const char*>(nul) - text) : length;
    const std::size_t next =
        (static_cast<std::size_t>(pos_ - begin_) + 2 + length + 3) & ~std::size_t{3};
    pos_ = begin_ + std::min(next, size());
    return {text, text_length};
  }

  // Frames are copied out (the packet gives no 8-byte alignment); the caller has checked that
  // `count` pointers fit.
  void pointers(std::size_t count, std::uint64_t* out) {
    if (count == 0) {
      return;  // `out` may be null then (an empty vector), and memcpy must not see null
    }
    need(count * layout_.pointer_size, "the backtrace");
    if (layout_.pointer_size == 8 && !layout_.swap) {
      std::memcpy(out, pos_, count * 8);
      pos_ += count * 8;
      return;
    }
    for (std::size_t i = 0; i < count; ++i) {
      out[i] = pointer();
    }
  }

  // The same as frames that hold only their address (the model's Frame): any aggregate whose
  // `address` member takes a 64-bit value.
  template <typename Frame>
  void frames(std::size_t count, Frame* out) {
    need(count * layout_.pointer_size, "the backtrace");
    if (layout_.pointer_size == 8 && !layout_.swap) {
      for (std::size_t i = 0; i < count; ++i) {
        std::uint64_t address = 0;
        std::memcpy(&address, pos_ + i * 8, 8);
        out[i] = Frame{.address = address};
      }
      pos_ += count * 8;
      return;
    }
    for (std::size_t i = 0; i < count; ++i) {
      out[i] = Frame{.address = pointer()};
    }
  }

  [[noreturn]] void fail(std::string message) const {
    throw CorruptPacket{offset_, std::move(message)};
  }

 private:
  void need(std::size_t n, const char* what) const {
    if (remaining() < n) {
      fail(std::string("packet too short for ") + what);
    }
  }

  const std::uint8_t* begin_;
  const std::uint8_t* pos_;
  const std::uint8_t* end_;
  Layout layout_;
  std::uint64_t offset_;
};

}  // namespace rtrace::sprtrace
