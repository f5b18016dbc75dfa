// A second reader of a trace stream the recorder copies into its file: the bytes fed to the tap
// go through a pipe to a thread of its own, which reads them as one InputStream (any format, as
// every reader takes its input) while the trace is still being written: `rtrace record
// --profile-every` builds its periodic profiles so, from the records, without a second parser.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <thread>

#include "io/input_stream.h"

namespace rtrace::recorder {

// Reads one trace's stream to its end (or throws on damage); `peer_pid` is the connection's.
using StreamObserver = std::function<void(InputStream& input, std::uint32_t peer_pid)>;

class StreamTap {
 public:
  // Starts the observer's thread. Throws std::system_error when no pipe can be made.
  StreamTap(const StreamObserver& observer, std::uint32_t peer_pid);
  StreamTap(const StreamTap&) = delete;
  StreamTap& operator=(const StreamTap&) = delete;
  // Ends the stream and waits for the observer.
  ~StreamTap();

  // Hands `bytes` on; blocks while the observer is behind by more than the pipe holds. After the
  // observer stopped (damage), the bytes are dropped.
  void feed(std::span<const std::uint8_t> bytes);
  // The end of the stream: waits for the observer to finish with it.
  void close();

 private:
  int write_end_ = -1;
  std::thread reader_;
};

}  // namespace rtrace::recorder
