#include "recorder/pid_sniffer.h"

#include <algorithm>
#include <limits>

#include "protocol/byte_loads.h"
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

void PidSniffer::on_collected() {
  const std::span<const std::uint8_t> held(held_.data(), held_size_);
  switch (state_) {
    case State::Handshake: {
      const sprtrace::HandshakeParse parsed = sprtrace::parse_handshake(held);
      if (parsed.status == sprtrace::ParseStatus::NeedMore) {
        want_ = parsed.size;  // more than held: the handshake's size is known from 2 bytes
        return;
      }
      if (parsed.status != sprtrace::ParseStatus::Complete) {
        return expect(State::Done, 0);
      }
      layout_ = sprtrace::layout_of(parsed.handshake);
      return expect(State::Packet, sprtrace::kPacketHeaderSize);
    }
    case State::Packet: {
      // No limit on the size: a packet is skipped, never held. (The offset only words problems,
      // which are not reported here.)
      const sprtrace::PacketFrame frame = sprtrace::parse_packet_header(
          held, layout_, 0, std::numeric_limits<std::uint64_t>::max());
      if (frame.status != sprtrace::ParseStatus::Complete) {
        return expect(State::Done, 0);
      }
      if (frame.type == static_cast<std::uint32_t>(sprtrace::PacketType::ProcessInfo) &&
          frame.data_size >= 4) {
        // [pid:4][seconds:4][microseconds:4][depth:4][name: length:2, bytes].
        packet_left_ = frame.data_size - 4;
        return expect(State::Pid, 4);
      }
      return expect(State::Packet, sprtrace::kPacketHeaderSize, frame.data_size);
    }
    case State::Pid: {
      pid_ = sprtrace::load_u32(held_.data(), layout_.swap);
      constexpr std::size_t kBeforeName = 12;  // the time and the depth
      if (packet_left_ < kBeforeName + 2) {
        return expect(State::Done, 0);
      }
      packet_left_ -= kBeforeName + 2;
      return expect(State::NameLength, 2, kBeforeName);
    }
    case State::NameLength: {
      const std::uint64_t length =
          std::min<std::uint64_t>(sprtrace::load_u16(held_.data(), layout_.swap), packet_left_);
      if (length == 0) {
        name_.emplace();
        return expect(State::Done, 0);
      }
      return expect(State::Name,
                    static_cast<std::size_t>(std::min<std::uint64_t>(length, kMaxNameBytes)));
    }
    case State::Name: {
      // The text ends at its first NUL (the rest is padding).
      const auto* text = reinterpret_cast<const char*>(held_.data());
      name_.emplace(text, std::find(text, text + held_size_, '\0'));
      return expect(State::Done, 0);
    }
    case State::Done:
      return;
  }
}

}  // namespace rtrace::recorder
