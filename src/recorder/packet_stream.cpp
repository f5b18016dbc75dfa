#include "recorder/packet_stream.h"

#include <algorithm>

#include "protocol/sprtrace_packets.h"

namespace rtrace::recorder {
namespace {

std::uint32_t word(const std::uint8_t* p, bool big_endian) {
  const auto b = [&](std::size_t i) { return std::uint32_t{p[i]}; };
  return big_endian ? (b(0) << 24) | (b(1) << 16) | (b(2) << 8) | b(3)
                    : b(0) | (b(1) << 8) | (b(2) << 16) | (b(3) << 24);
}

}  // namespace

void PacketStream::feed(std::span<const std::uint8_t> bytes, std::string& out) {
  while (!bytes.empty()) {
    std::size_t used = 0;
    if (state_ == State::Opaque) {
      used = bytes.size();
      out.append(reinterpret_cast<const char*>(bytes.data()), used);
    } else if (state_ == State::Payload) {
      used = static_cast<std::size_t>(std::min<std::uint64_t>(payload_left_, bytes.size()));
      if (keep_payload_) {
        out.append(reinterpret_cast<const char*>(bytes.data()), used);
      }
      payload_left_ -= used;
      if (payload_left_ == 0) {
        state_ = State::PacketHeader;
        want_ = sprtrace::kPacketHeaderSize;
      }
    } else {
      used = std::min(want_ - held_size_, bytes.size());
      std::copy_n(bytes.begin(), used, held_.begin() + static_cast<std::ptrdiff_t>(held_size_));
      held_size_ += used;
      if (held_size_ == want_) {
        on_collected(out);
      }
    }
    bytes = bytes.subspan(used);
  }
}

void PacketStream::pass_held(std::string& out) {
  out.append(reinterpret_cast<const char*>(held_.data()), held_size_);
  held_size_ = 0;
}

// The handshake is [0xF0][size][major][minor][arch length][arch][byte order][pointer size] plus
// padding, `size` counting everything after itself; packets follow.
void PacketStream::on_collected(std::string& out) {
  switch (state_) {
    case State::HandshakeHead:
      if (held_[0] != sprtrace::kHandshakeId || held_[1] < 3) {
        state_ = State::Opaque;
        return pass_held(out);
      }
      state_ = State::Handshake;
      want_ = 2 + std::size_t{held_[1]};
      return;
    case State::Handshake: {
      const std::size_t arch_length = held_[4];
      if (5 + arch_length + 2 > held_size_) {
        state_ = State::Opaque;
        return pass_held(out);
      }
      type_first_ = held_[2] >= sprtrace::kTypeFirstMajor;
      big_endian_ = held_[5 + arch_length] == 1;
      pass_held(out);
      state_ = State::PacketHeader;
      want_ = sprtrace::kPacketHeaderSize;
      return;
    }
    case State::PacketHeader: {
      const std::uint32_t type = word(held_.data() + (type_first_ ? 0 : 4), big_endian_);
      const std::uint64_t size = word(held_.data() + (type_first_ ? 4 : 0), big_endian_);
      const std::uint64_t counted_header = type_first_ ? 0 : 4;
      if (size < counted_header) {
        state_ = State::Opaque;  // damaged: the reader will say so; keep every byte
        return pass_held(out);
      }
      const bool extension = type_first_ && sprtrace::is_extension(type);
      saw_command_line_ = saw_command_line_ ||
                          type == static_cast<std::uint32_t>(sprtrace::PacketType::CommandLine);
      saw_trace_end_ =
          saw_trace_end_ || type == static_cast<std::uint32_t>(sprtrace::PacketType::TraceEnd);
      keep_payload_ = !(strip_ && extension);
      if (keep_payload_) {
        pass_held(out);
      } else {
        held_size_ = 0;
      }
      payload_left_ = size - counted_header;
      if (payload_left_ > 0) {
        state_ = State::Payload;
      }
      return;
    }
    case State::Payload:
    case State::Opaque:
      return;
  }
}

}  // namespace rtrace::recorder
