#include "recorder/pid_sniffer.h"

#include <algorithm>

#include "protocol/sprtrace_packets.h"

namespace rtrace::recorder {

void PidSniffer::feed(std::span<const std::uint8_t> bytes) {
  while (!bytes.empty() && state_ != State::Done) {
    if (seen_ >= kGiveUpAfter) {
      state_ = State::Done;
      break;
    }
    std::size_t used = 0;
    if (skip_ > 0) {
      used = static_cast<std::size_t>(std::min<std::uint64_t>(skip_, bytes.size()));
      skip_ -= used;
    } else {
      used = collect(bytes);
      if (held_size_ == want_) {
        on_collected();
      }
    }
    seen_ += used;
    bytes = bytes.subspan(used);
  }
}

std::size_t PidSniffer::collect(std::span<const std::uint8_t> bytes) {
  const std::size_t take = std::min(want_ - held_size_, bytes.size());
  std::copy_n(bytes.begin(), take, held_.begin() + static_cast<std::ptrdiff_t>(held_size_));
  held_size_ += take;
  return take;
}

void PidSniffer::expect(State state, std::size_t bytes, std::uint64_t skip_first) {
  state_ = state;
  want_ = bytes;
  held_size_ = 0;
  skip_ = skip_first;
}

std::uint32_t PidSniffer::word(std::size_t at) const {
  const auto b = [&](std::size_t i) { return std::uint32_t{held_[at + i]}; };
  return big_endian_ ? (b(0) << 24) | (b(1) << 16) | (b(2) << 8) | b(3)
                     : b(0) | (b(1) << 8) | (b(2) << 16) | (b(3) << 24);
}

// The handshake is [0xF0][size][major][minor][arch length][arch][endianness][pointer size] plus
// padding, `size` counting everything after itself; packets follow.
void PidSniffer::on_collected() {
  switch (state_) {
    case State::HandshakeHead:
      handshake_left_ = held_[1];
      if (held_[0] != sprtrace::kHandshakeId) {
        return expect(State::Done, 0);
      }
      return expect(State::HandshakeVersion, 3);
    case State::HandshakeVersion: {
      type_first_ = held_[0] >= 2;
      const std::size_t arch_length = held_[2];
      if (handshake_left_ < 3 + arch_length + 2) {
        return expect(State::Done, 0);
      }
      handshake_left_ -= 3 + arch_length;
      return expect(State::Endianness, 1, arch_length);
    }
    case State::Endianness:
      big_endian_ = held_[0] == 1;
      return expect(State::Packet, 8, handshake_left_ - 1);
    case State::Packet: {
      const std::uint32_t type = word(type_first_ ? 0 : 4);
      const std::uint32_t size = word(type_first_ ? 4 : 0);
      if (type == sprtrace::packet_type("PINF", big_endian_) && size >= 4) {
        return expect(State::Pid, 4);
      }
      return expect(State::Packet, 8, size);
    }
    case State::Pid:
      pid_ = word(0);
      return expect(State::Done, 0);
    case State::Done:
      return;
  }
}

}  // namespace rtrace::recorder
