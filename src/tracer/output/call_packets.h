// The packets of one traced call, as the original tracer writes them: CALL, then ARGS when the
// call has arguments, then BTRC (empty when there are no frames); a size of 4 GiB or more, which
// the CALL's 4-byte field cannot hold, follows the CALL in an RSIZ packet of rtrace's. This is the
// encoding on every traced call's path, so it is measured once (each string's length taken once)
// and written through one local cursor with no bounds check per field; PacketEncoder, which checks
// every field, writes the rare packets. The bytes are PacketEncoder's (tracer_core_test compares
// them). Copies of variable size go to the C library's memcpy itself (libc_memory.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "protocol/sprtrace_packets.h"
#include "tracer/api/tracer_api.h"
#include "tracer/core/libc_memory.h"

namespace rtrace::tracer {

class CallPackets {
 public:
  // The longest text a string field holds (its 2-byte length counts the padding).
  static constexpr std::size_t kMaxText = 0xfff0;
  // The length `text` is written with (null: empty), cut to kMaxText.
  static std::size_t text_length(const char* text) {
    const std::size_t length = text == nullptr ? 0 : std::strlen(text);
    return length > kMaxText ? kMaxText : length;
  }

  CallPackets(const RtraceCall& call, std::uint32_t frame_count)
      : call_(call), frame_count_(frame_count), name_length_(text_length(call.name)) {
    size_ = kCallFixed + sprtrace::string_field_size(name_length_) + kBacktraceFixed +
            sizeof(std::uintptr_t) * std::size_t{frame_count};
    if (sprtrace::needs_call_size_packet(call.size)) {
      size_ += kCallSizeFixed;
    }
    if (call.arg_count > 0) {
      size_ += kArgsFixed;
      for (std::uint32_t i = 0; i < call.arg_count; ++i) {
        size_ += sprtrace::string_field_size(measure_argument(i, 0)) +
                 sprtrace::string_field_size(measure_argument(i, 1));
      }
    }
  }

  // Bytes write() writes.
  std::size_t size() const { return size_; }

  // Writes the packets into `out`, which has room for size() bytes.
  void write(char* out, std::uint32_t context_mask, std::uint32_t timestamp_ms,
             const std::uintptr_t* frames) const {
    char* packet = begin(out, sprtrace::PacketType::FunctionCall);
    put_u32(out, call_.resource_type);
    put_u32(out, context_mask);
    put_u32(out, timestamp_ms);
    put_u32(out, call_.kind);
    put_string(out, call_.name, name_length_);
    const bool wide = sprtrace::needs_call_size_packet(call_.size);
    put_u32(out, wide ? sprtrace::kCappedCallSize : static_cast<std::uint32_t>(call_.size));
    put_u64(out, call_.id);
    end(packet, out);
    if (wide) {  // the real size, which the CALL's 4-byte field cannot hold
      packet = begin(out, sprtrace::PacketType::CallSize);
      put_u64(out, call_.size);
      end(packet, out);
    }
    if (call_.arg_count > 0) {
      packet = begin(out, sprtrace::PacketType::FunctionArgs);
      put_u32(out, call_.arg_count);
      for (std::uint32_t i = 0; i < call_.arg_count; ++i) {
        put_string(out, call_.args[i].name, argument_length(i, 0));
        put_string(out, call_.args[i].value, argument_length(i, 1));
      }
      end(packet, out);
    }
    packet = begin(out, sprtrace::PacketType::Backtrace);
    put_u32(out, frame_count_);
    const std::size_t frame_bytes = sizeof(std::uintptr_t) * std::size_t{frame_count_};
    if (frame_bytes > 0) {
      libc_copy(out, frames, frame_bytes);
      out += frame_bytes;
    }
    end(packet, out);
  }

  // Names and arguments are mostly short ("close", "path", "0x42", "/dev/null"): up to 16 bytes
  // are copied inline with two overlapping loads and stores, which read only bytes of the text
  // (never past its end: it may end a page); longer ones by the C library. Public:
  // the path record (path_record.h) copies its path so.
  static void copy_text(char* out, const char* text, std::size_t length) {
    if (length >= 8 && length <= 16) {
      copy_overlapping<std::uint64_t>(out, text, length);
    } else if (length >= 4 && length < 8) {
      copy_overlapping<std::uint32_t>(out, text, length);
    } else if (length < 4) {
      // Not a loop: the compiler would make it a call of memcpy, which another module
      // interposes (libc_memory.h).
      if (length > 0) {
        out[0] = text[0];
      }
      if (length > 1) {
        out[1] = text[1];
      }
      if (length > 2) {
        out[2] = text[2];
      }
    } else {
      libc_copy(out, text, length);
    }
  }

 private:
  // [type][size] and the fixed fields of each packet.
  static constexpr std::size_t kHeader = 8;
  static constexpr std::size_t kCallFixed = kHeader + std::size_t{4} * 4 + 4 + 8;
  static constexpr std::size_t kArgsFixed = kHeader + 4;
  static constexpr std::size_t kCallSizeFixed = kHeader + sprtrace::kCallSizeSize;
  static constexpr std::size_t kBacktraceFixed = kHeader + 4;
  // Arguments whose lengths are kept from the measuring; later ones are measured again.
  static constexpr std::uint32_t kKeptArguments = 8;

  // The length of argument `index`'s name (`which` 0) or value (1), kept for write().
  std::size_t measure_argument(std::uint32_t index, int which) {
    const RtraceArg& argument = call_.args[index];
    const std::size_t length = text_length(which == 0 ? argument.name : argument.value);
    if (index < kKeptArguments) {
      argument_lengths_[index][which] = static_cast<std::uint16_t>(length);
    }
    return length;
  }

  std::size_t argument_length(std::uint32_t index, int which) const {
    if (index < kKeptArguments) {
      return argument_lengths_[index][which];
    }
    const RtraceArg& argument = call_.args[index];
    return text_length(which == 0 ? argument.name : argument.value);
  }

  static char* begin(char*& out, sprtrace::PacketType type) {
    char* packet = out;
    put_u32(out, static_cast<std::uint32_t>(type));
    out += 4;  // the size, filled in by end()
    return packet;
  }

  static void end(char* packet, const char* out) {
    const auto size = static_cast<std::uint32_t>(out - packet - kHeader);
    std::memcpy(packet + 4, &size, sizeof size);
  }

  static void put_u32(char*& out, std::uint32_t value) {
    std::memcpy(out, &value, sizeof value);
    out += sizeof value;
  }

  static void put_u64(char*& out, std::uint64_t value) {
    std::memcpy(out, &value, sizeof value);
    out += sizeof value;
  }

  // [length:2][text][NUL padding]. The padding (0 to 3 bytes) lies within the field's last four
  // bytes, so one 4-byte store of zeros, made before the length and the text, pads it.
  static void put_string(char*& out, const char* text, std::size_t length) {
    const std::size_t padded = sprtrace::padded_string_length(length);
    const std::uint32_t zeros = 0;
    std::memcpy(out + padded - 2, &zeros, sizeof zeros);
    const auto stored = static_cast<std::uint16_t>(padded);
    std::memcpy(out, &stored, sizeof stored);
    copy_text(out + 2, text, length);
    out += 2 + padded;
  }

  // `length` bytes (one to two words) as the first and the last word, which may overlap.
  template <typename Word>
  static void copy_overlapping(char* out, const char* text, std::size_t length) {
    Word head = 0;
    Word tail = 0;
    std::memcpy(&head, text, sizeof head);
    std::memcpy(&tail, text + length - sizeof tail, sizeof tail);
    std::memcpy(out, &head, sizeof head);
    std::memcpy(out + length - sizeof tail, &tail, sizeof tail);
  }

  const RtraceCall& call_;
  std::uint32_t frame_count_;
  std::size_t name_length_;
  std::uint16_t argument_lengths_[kKeptArguments][2] = {};
  std::size_t size_ = 0;
};

}  // namespace rtrace::tracer
