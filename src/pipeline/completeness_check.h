// Finds the traces that broke off: rtrace's tracer writes a command line (ProcessInfo::
// command_line) at the start of each trace and a TraceEnd record when the process closes it,
// whatever the way it ends (exit, _exit, a fatal signal, exec, toggling off). A process with the
// first and without the second was killed (SIGKILL) or lost its connection: its trace looks
// complete but stops short, so its "leaks" are only what was alive when it stopped.
//
// Traces of the original sp-rtrace and other formats carry no command line: never incomplete.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

#include "model/trace_sink.h"

namespace rtrace {

inline constexpr std::string_view kIncompleteTrace =
    "trace incomplete: the process ended without closing the trace (killed?)";

class CompletenessCheck final : public ForwardingSink {
 public:
  // `on_incomplete` is called at finish(), before the next sink's, once per broken-off process.
  CompletenessCheck(TraceSink& next, std::function<void(std::uint32_t pid)> on_incomplete)
      : ForwardingSink(next), on_incomplete_(std::move(on_incomplete)) {}

  void process(const ProcessInfo& info) override {
    if (info.command_line && std::ranges::find(expected_, info.pid) == expected_.end()) {
      expected_.push_back(info.pid);
    }
    next().process(info);
  }

  void trace_end(const TraceEnd& end) override {
    const std::uint32_t pid = end.pid == 0 && expected_.size() == 1 ? expected_[0] : end.pid;
    std::erase(expected_, pid);
    next().trace_end(end);
  }

  void finish() override {
    for (const std::uint32_t pid : expected_) {
      on_incomplete_(pid);
    }
    next().finish();
  }

 private:
  std::function<void(std::uint32_t)> on_incomplete_;
  std::vector<std::uint32_t> expected_;  // processes whose TraceEnd has not come yet
};

}  // namespace rtrace
