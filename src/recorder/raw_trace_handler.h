// Keeps each connection's binary stream as it came: `<dir>/<pid>-<n>.rtrace`, n the smallest
// number not taken, never replacing a file.
#pragma once

#include <string>

#include "recorder/trace_handler.h"

namespace rtrace::recorder {

class RawTraceHandler final : public TraceHandler {
 public:
  RawTraceHandler(std::string directory, bool quiet)
      : directory_(std::move(directory)), quiet_(quiet) {}
  bool record(int fd, std::uint32_t peer_pid) override;

 private:
  std::string directory_;
  bool quiet_;
};

}  // namespace rtrace::recorder
