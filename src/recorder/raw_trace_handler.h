// Keeps each connection's binary stream as it came: `<dir>/<pid>-<n>.rtrace`, n the smallest
// number not taken, never replacing a file. A stream that breaks off (rtrace's tracer did not
// close it: the process was killed) is kept, with a warning naming the file, and counts as not
// recorded in full. With `strip_extensions` (sp-rtrace) rtrace's extension packets are left
// out, so that the file holds the original protocol only. On a terminal (without --quiet) a
// progress line shows the bytes recorded by all connections together and the rate.
#pragma once

#include <string>

#include "io/progress.h"
#include "recorder/trace_handler.h"

namespace rtrace::recorder {

class RawTraceHandler final : public TraceHandler {
 public:
  RawTraceHandler(std::string directory, bool quiet, bool strip_extensions)
      : directory_(std::move(directory)),
        quiet_(quiet),
        strip_extensions_(strip_extensions),
        progress_("recording", std::nullopt, Progress::shown_on_stderr(quiet)) {}
  bool record(int fd, std::uint32_t peer_pid) override;

 private:
  std::string directory_;
  bool quiet_;
  bool strip_extensions_;
  Progress progress_;  // shared by the connections' threads
};

}  // namespace rtrace::recorder
