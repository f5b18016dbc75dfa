// Finds the traced process id and name in the first bytes of a binary trace stream (the PINF
// packet), while the bytes are copied through unchanged. Hostile input cannot make it allocate or
// loop: it keeps a few bytes of state (at most a handshake, or the name's first kMaxNameBytes)
// and gives up after kGiveUpAfter bytes. The
// handshake and packet headers are parsed by protocol/sprtrace_framing.h.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "protocol/sprtrace_framing.h"
#include "protocol/sprtrace_handshake.h"

namespace rtrace::recorder {

class PidSniffer {
 public:
  void feed(std::span<const std::uint8_t> bytes);
  // The pid, once the PINF packet's first field has been seen.
  std::optional<std::uint32_t> pid() const { return pid_; }
  // The process's name as the PINF packet gives it (its argv[0], cut at kMaxNameBytes), once seen.
  const std::optional<std::string>& name() const { return name_; }

  static constexpr std::size_t kMaxNameBytes = 255;

  static constexpr std::uint64_t kGiveUpAfter = std::uint64_t{1} << 20;

 private:
  // What the next `want_` bytes are.
  enum class State : std::uint8_t { Handshake, Packet, Pid, NameLength, Name, Done };

  // Collects bytes into `held_` up to `want_`; returns how many of `bytes` it took.
  std::size_t collect(std::span<const std::uint8_t> bytes);
  void on_collected();
  void expect(State state, std::size_t bytes, std::uint64_t skip_first = 0);

  State state_ = State::Handshake;
  std::array<std::uint8_t, std::max(sprtrace::kMaxHandshakeSize, kMaxNameBytes)> held_{};
  std::size_t held_size_ = 0;
  std::size_t want_ = 2;
  std::uint64_t skip_ = 0;  // bytes to pass over before collecting
  std::uint64_t seen_ = 0;
  sprtrace::Layout layout_;
  std::uint64_t packet_left_ = 0;  // of the PINF packet, after the bytes collected
  std::optional<std::uint32_t> pid_;
  std::optional<std::string> name_;
};

}  // namespace rtrace::recorder
