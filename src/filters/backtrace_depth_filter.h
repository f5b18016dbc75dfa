// -b / --backtrace-depth N: trims every backtrace to its N innermost frames and records N as
// the trace's backtrace depth. Calls whose trimmed backtraces become equal are grouped together
// by a later -c (the original keeps them apart; that is a bug).
#pragma once

#include <cstdint>

#include "model/trace_sink.h"

namespace rtrace {

class BacktraceDepthFilter final : public ForwardingSink {
 public:
  BacktraceDepthFilter(TraceSink& next, std::uint32_t depth)
      : ForwardingSink(next), depth_(depth) {}

  void process(const ProcessInfo& info) override;
  void call(const CallRecord& record) override;

 private:
  std::uint32_t depth_;
};

}  // namespace rtrace
