// A pass-through stage that remembers the traced process id and name, to name output files after
// them.
#pragma once

#include <cstdint>
#include <string>

#include "model/trace_sink.h"

namespace rtrace {

class PidProbe final : public ForwardingSink {
 public:
  using ForwardingSink::ForwardingSink;
  void process(const ProcessInfo& info) override {
    pid_ = info.pid;
    name_ = info.name;
    ForwardingSink::process(info);
  }
  std::uint32_t pid() const { return pid_; }
  const std::string& name() const { return name_; }  // argv[0]; empty until seen

 private:
  std::uint32_t pid_ = 0;
  std::string name_;
};

}  // namespace rtrace
