// Writer of the sp-rtrace binary protocol, version 2.0, exactly as the original tracer writes it,
// so that the original post-processor reads our traces and binary -> model -> binary is
// byte-identical.
//
// rtrace's extension packets (RCMD, REND; docs/protocol-extensions.md) carry the command line
// and the trace end; the original post-processor skips them.
//
// What the protocol has no packet for is left out: symbols (frames go as addresses), call
// groups and leak summaries (derived by -c and -l; they are made again from the calls), notes,
// and the header's origin and applied stages. Timestamps are cut to whole milliseconds; enter and
// exit calls are written as "other" calls.
#pragma once

#include <memory>
#include <span>

#include "io/output_stream.h"
#include "model/trace_sink.h"

namespace rtrace {

class BinaryWriter final : public TraceSink {
 public:
  explicit BinaryWriter(OutputStream& out);
  ~BinaryWriter() override;

  void header(const TraceHeader& header) override;
  void process(const ProcessInfo& info) override;
  void output_settings(const OutputSettings& settings) override;
  void module(const ModuleInfo& module) override;
  void mapping(const Mapping& mapping) override;
  void context(const ContextInfo& context) override;
  void resource_type(const ResourceType& type) override;
  void call(const CallRecord& record) override;
  void heap_info(const HeapInfo& info) override;
  void trace_end(const TraceEnd& end) override;
  void attachment(const Attachment& attachment) override;
  void finish() override;

 private:
  class Encoder;
  void start_record();
  void end_record();
  void write_call(const CallRecord& record);
  void write_command_line(std::uint32_t pid, const CommandLine& command_line);

  OutputStream& out_;
  std::unique_ptr<Encoder> encoder_;
};

}  // namespace rtrace
