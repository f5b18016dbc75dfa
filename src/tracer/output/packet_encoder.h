// Encodes sp-rtrace protocol 2.0 packets into a caller-provided buffer (host byte order, the
// layouts of protocol/sprtrace_packets.h, the handshake of protocol/sprtrace_handshake.h). Never
// allocates; a packet that would not fit marks the encoder as overflowed and the caller drops it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "protocol/sprtrace_handshake.h"
#include "protocol/sprtrace_packets.h"
#include "tracer/core/libc_memory.h"

namespace rtrace::tracer {

class PacketEncoder {
 public:
  PacketEncoder(char* buffer, std::size_t capacity) : buffer_(buffer), capacity_(capacity) {}

  std::size_t size() const { return used_; }
  std::size_t remaining() const { return overflowed_ ? 0 : capacity_ - used_; }
  bool overflowed() const { return overflowed_; }

  // The handshake of protocol 2.0 on this machine: x86-64, little-endian.
  void handshake() {
    constexpr sprtrace::Handshake kThisMachine{
        .arch = "x86_64", .big_endian = false, .pointer_size = sizeof(void*)};
    if (!fits(sprtrace::handshake_size(kThisMachine.arch.size()))) {
      return;
    }
    used_ += sprtrace::write_handshake(kThisMachine, buffer_ + used_);
  }

  // Starts a packet; its size is filled in by end_packet().
  void begin_packet(sprtrace::PacketType type) {
    packet_start_ = used_;
    u32(static_cast<std::uint32_t>(type));
    u32(0);
  }

  void end_packet() {
    if (overflowed_) {
      return;
    }
    const auto size = static_cast<std::uint32_t>(used_ - packet_start_ - 8);
    std::memcpy(buffer_ + packet_start_ + 4, &size, sizeof size);
  }

  void u32(std::uint32_t value) { raw(&value, sizeof value); }
  void pointer(std::uint64_t value) { raw(&value, sizeof value); }
  void u64(std::uint64_t value) { raw(&value, sizeof value); }
  // `count` pointers back to back (a backtrace's frames): one bounds check and one copy.
  void pointers(const std::uintptr_t* values, std::uint32_t count) {
    const std::size_t bytes = sizeof *values * count;
    if (fits(bytes)) {
      libc_copy(buffer_ + used_, values, bytes);
      used_ += bytes;
    }
  }

  // [length:2][text][NUL padding]; the length counts the padding, as the real tracer writes it.
  void string(const char* text) {
    const std::size_t length = text == nullptr ? 0 : std::strlen(text);
    string(text, length > 0xfff0 ? 0xfff0 : length);
  }

  void string(const char* text, std::size_t length) {
    const std::size_t padded = sprtrace::padded_string_length(length);
    if (!fits(2 + padded)) {
      return;
    }
    const auto stored = static_cast<std::uint16_t>(padded);
    char* out = buffer_ + used_;
    std::memcpy(out, &stored, sizeof stored);
    if (length > 0) {
      libc_copy(out + 2, text, length);
    }
    libc_fill(out + 2 + length, 0, padded - length);
    used_ += 2 + padded;
  }

 private:
  bool fits(std::size_t bytes) {
    if (overflowed_ || capacity_ - used_ < bytes) {
      overflowed_ = true;
      return false;
    }
    return true;
  }

  void raw(const void* data, std::size_t bytes) {
    if (fits(bytes)) {
      std::memcpy(buffer_ + used_, data, bytes);
      used_ += bytes;
    }
  }

  char* buffer_;
  std::size_t capacity_;
  std::size_t used_ = 0;
  std::size_t packet_start_ = 0;
  bool overflowed_ = false;
};

}  // namespace rtrace::tracer
