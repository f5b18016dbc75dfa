// Follows the packets of a binary trace stream as the recorder copies it to a file, with a few
// bytes of state whatever the input (hostile input cannot make it allocate or loop):
//  - it notes rtrace's extension packets (RCMD at the start, REND at the end: see
//    docs/protocol-extensions.md), so that the recorder can tell a trace that broke off (the
//    process was killed: RCMD and no REND) from a complete one;
//  - with `strip_extensions` (the `sp-rtrace` command, which keeps the original's protocol
//    exactly) it leaves them out of what it passes on, and counts the calls whose size an RSIZ
//    packet carried: their CALL packets keep it capped to 4 bytes (4294967295).
// The handshake and packet headers are parsed by protocol/sprtrace_framing.h. A stream that does
// not start with a handshake, or whose packets stop making sense, is passed on untouched from
// there; a second handshake (another trace on the same stream) is followed as the first.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "protocol/sprtrace_framing.h"
#include "protocol/sprtrace_handshake.h"

namespace rtrace::recorder {

class PacketStream {
 public:
  explicit PacketStream(bool strip_extensions) : strip_(strip_extensions) {}

  // Appends to `out` what of `bytes` is to be kept.
  void feed(std::span<const std::uint8_t> bytes, std::string& out);

  // The stream came from rtrace's tracer (it has RCMD) and did not end with REND.
  bool broke_off() const { return saw_command_line_ && !saw_trace_end_; }
  // The stream came from rtrace's tracer (it has RCMD, near its start).
  bool has_command_line() const { return saw_command_line_; }
  // Calls of 4 GiB or more whose real size (RSIZ) was left out with the extensions.
  std::uint64_t capped_sizes() const { return capped_sizes_; }

 private:
  enum class State : std::uint8_t { Handshake, PacketHeader, Payload, Opaque };

  void on_collected(std::string& out);
  void pass_held(std::string& out);

  bool strip_;
  State state_ = State::Handshake;
  std::array<std::uint8_t, sprtrace::kMaxHandshakeSize> held_{};
  std::size_t held_size_ = 0;
  std::size_t want_ = 2;
  std::uint64_t payload_left_ = 0;
  bool keep_payload_ = true;
  sprtrace::Layout layout_;
  bool saw_command_line_ = false;
  bool saw_trace_end_ = false;
  std::uint64_t capped_sizes_ = 0;
};

}  // namespace rtrace::recorder
