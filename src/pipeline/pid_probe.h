// A pass-through stage that remembers the traced process id, to name output files after it.
#pragma once

#include <cstdint>

#include "model/trace_sink.h"

namespace rtrace {

class PidProbe final : public ForwardingSink {
 public:
  using ForwardingSink::ForwardingSink;
  void process(const ProcessInfo& info) override {
    pid_ = info.pid;
    ForwardingSink::process(info);
  }
  std::uint32_t pid() const { return pid_; }

 private:
  std::uint32_t pid_ = 0;
};

}  // namespace rtrace
