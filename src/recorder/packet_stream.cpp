#include "recorder/packet_stream.h"

#include <algorithm>
#include <limits>

#include "protocol/sprtrace_packets.h"

namespace rtrace::recorder {

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

void PacketStream::on_collected(std::string& out) {
  const std::span<const std::uint8_t> held(held_.data(), held_size_);
  switch (state_) {
    case State::Handshake: {
      const sprtrace::HandshakeParse parsed = sprtrace::parse_handshake(held);
      if (parsed.status == sprtrace::ParseStatus::NeedMore) {
        want_ = parsed.size;  // more than held: the handshake's size is known from 2 bytes
        return;
      }
      if (parsed.status != sprtrace::ParseStatus::Complete) {
        state_ = State::Opaque;
        return pass_held(out);
      }
      layout_ = sprtrace::layout_of(parsed.handshake);
      pass_held(out);
      state_ = State::PacketHeader;
      want_ = sprtrace::kPacketHeaderSize;
      return;
    }
    case State::PacketHeader: {
      // No limit on the size: the payload is passed on as it comes, never held. (The offset
      // only words problems, which are not reported here.)
      const sprtrace::PacketFrame frame = sprtrace::parse_packet_header(
          held, layout_, 0, std::numeric_limits<std::uint64_t>::max());
      if (frame.status == sprtrace::ParseStatus::NextTrace) {
        state_ = State::Handshake;  // the header held is the new handshake's start
        return on_collected(out);
      }
      if (frame.status != sprtrace::ParseStatus::Complete) {
        state_ = State::Opaque;  // damaged: the reader will say so; keep every byte
        return pass_held(out);
      }
      const std::uint32_t type = frame.type;
      const bool extension = layout_.type_first && sprtrace::is_extension(type);
      saw_command_line_ = saw_command_line_ ||
                          type == static_cast<std::uint32_t>(sprtrace::PacketType::CommandLine);
      saw_trace_end_ =
          saw_trace_end_ || type == static_cast<std::uint32_t>(sprtrace::PacketType::TraceEnd);
      keep_payload_ = !(strip_ && extension);
      if (!keep_payload_ && type == static_cast<std::uint32_t>(sprtrace::PacketType::CallSize)) {
        ++capped_sizes_;
      }
      if (keep_payload_) {
        pass_held(out);
      } else {
        held_size_ = 0;
      }
      payload_left_ = frame.data_size;
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
