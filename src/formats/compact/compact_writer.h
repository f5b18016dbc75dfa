// Writer of the compact rtrace recording format (docs/format.md): what `rtrace process --to
// compact` writes. The tracer writes the same records with the same encoder
// (protocol/compact_encoder.h) from inside the traced process.
//
// What the format has no record for is left out: symbols (frames go as addresses), call groups
// and leak summaries (-c and -l make them again), notes and call indices (calls are numbered by
// their position). Thread ids go as THREAD records (version 4). The end-of-trace record says
// "unknown reason" until the model carries the one its input had.
#pragma once

#include <memory>

#include "io/output_stream.h"
#include "model/trace_sink.h"

namespace rtrace {

class CompactWriter final : public TraceSink {
 public:
  explicit CompactWriter(OutputStream& out);
  ~CompactWriter() override;

  void header(const TraceHeader& header) override;
  void process(const ProcessInfo& info) override;
  void output_settings(const OutputSettings& settings) override;
  void module(const ModuleInfo& module) override;
  void mapping(const Mapping& mapping) override;
  void context(const ContextInfo& context) override;
  void resource_type(const ResourceType& type) override;
  void call(const CallRecord& record) override;
  void heap_info(const HeapInfo& info) override;
  void attachment(const Attachment& attachment) override;
  void trace_end(const TraceEnd& end) override;
  void leak_kinds(const LeakKinds& kinds) override;
  void finish() override;

 private:
  struct State;
  void ensure_header();

  OutputStream& out_;
  std::unique_ptr<State> state_;
};

}  // namespace rtrace
