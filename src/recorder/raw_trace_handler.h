// Keeps each connection's binary stream as it came: `<dir>/<pid>-<n>.rtrace`, n the smallest
// number not taken, never replacing a file. On a terminal (without --quiet) a progress line
// shows the bytes recorded by all connections together and the rate.
#pragma once

#include <string>

#include "io/progress.h"
#include "recorder/trace_handler.h"

namespace rtrace::recorder {

class RawTraceHandler final : public TraceHandler {
 public:
  RawTraceHandler(std::string directory, bool quiet)
      : directory_(std::move(directory)),
        quiet_(quiet),
        progress_("recording", std::nullopt, Progress::shown_on_stderr(quiet)) {}
  bool record(int fd, std::uint32_t peer_pid) override;

 private:
  std::string directory_;
  bool quiet_;
  Progress progress_;  // shared by the connections' threads
};

}  // namespace rtrace::recorder
