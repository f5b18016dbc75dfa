// What the recorder makes of one connection: the stream a traced process writes, start to end.
#pragma once

#include <cstdint>

namespace rtrace::recorder {

class TraceHandler {
 public:
  TraceHandler() = default;
  TraceHandler(const TraceHandler&) = delete;
  TraceHandler& operator=(const TraceHandler&) = delete;
  virtual ~TraceHandler() = default;

  // Reads `fd` (a blocking socket, not closed here) to its end and makes the output of it. Runs
  // in a thread of its own per connection, several at once. Never throws: problems go to stderr.
  // Reads to the end even after a problem, so that the traced process never blocks on a full
  // socket. Returns false when the output could not be made in full.
  virtual bool record(int fd, std::uint32_t peer_pid) = 0;
};

// Reads and discards the rest of `fd`.
void drain(int fd);

// Reads up to `size` bytes into `data`; 0 at the end. Throws std::runtime_error on a read error.
std::size_t read_some(int fd, std::uint8_t* data, std::size_t size);

}  // namespace rtrace::recorder
