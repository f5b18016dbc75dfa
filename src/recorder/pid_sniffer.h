// Finds the traced process id in the first bytes of a binary trace stream (the PINF packet),
// while the bytes are copied through unchanged. Hostile input cannot make it allocate or loop: it
// keeps a few bytes of state and gives up after kGiveUpAfter bytes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>

namespace rtrace::recorder {

class PidSniffer {
 public:
  void feed(std::span<const std::uint8_t> bytes);
  // The pid, once the PINF packet's first field has been seen.
  std::optional<std::uint32_t> pid() const { return pid_; }

  static constexpr std::uint64_t kGiveUpAfter = std::uint64_t{1} << 20;

 private:
  // What the next `want_` bytes are.
  enum class State : std::uint8_t {
    HandshakeHead,
    HandshakeVersion,
    Endianness,
    Packet,
    Pid,
    Done
  };

  // Collects bytes into `held_` up to `want_`; returns how many of `bytes` it took.
  std::size_t collect(std::span<const std::uint8_t> bytes);
  void on_collected();
  void expect(State state, std::size_t bytes, std::uint64_t skip_first = 0);
  std::uint32_t word(std::size_t at) const;

  State state_ = State::HandshakeHead;
  std::array<std::uint8_t, 8> held_{};
  std::size_t held_size_ = 0;
  std::size_t want_ = 2;
  std::uint64_t skip_ = 0;  // bytes to pass over before collecting
  std::uint64_t seen_ = 0;
  bool big_endian_ = false;
  bool type_first_ = true;  // protocol 2.0: [type][size]; before: [size][type]
  std::size_t handshake_left_ = 0;
  std::optional<std::uint32_t> pid_;
};

}  // namespace rtrace::recorder
