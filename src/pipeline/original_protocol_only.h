// Leaves out what rtrace adds to the sp-rtrace protocol (the command line, the trace end;
// docs/protocol-extensions.md), for output that must be exactly what the original tools made
// (`sp-rtrace -P`).
#pragma once

#include "model/trace_sink.h"

namespace rtrace {

class OriginalProtocolOnly final : public ForwardingSink {
 public:
  using ForwardingSink::ForwardingSink;

  void process(const ProcessInfo& info) override {
    if (!info.command_line) {
      next().process(info);
      return;
    }
    ProcessInfo original = info;
    original.command_line.reset();
    next().process(original);
  }

  void trace_end(const TraceEnd& /*end*/) override {}
  void leak_kinds(const LeakKinds& /*kinds*/) override {}
};

}  // namespace rtrace
