// The push pipeline: readers push records into a sink, stages are sinks that forward to the next
// sink, writers and exports are the last sink.
//
// Records arrive in stream order: header() first, then the registries (process, modules,
// mappings, contexts, resource types) and calls, interleaved as the trace has them. symbol()
// announces a SymbolId before the first frame that uses it. group() announces that the next
// calls share a backtrace (compressed output); leak_summary() follows the calls of a leaks-only
// trace; leak_kinds() gives the leak check's kinds of the blocks left (before the trace's end);
// trace_end() ends the trace of a process whose tracer closed it. finish() comes exactly
// once, after the last record, also on damaged input (everything complete delivered by then).
//
// Every method but finish() does nothing by default: a sink overrides what it uses. (We chose
// virtual methods with empty defaults over one push(const Record&) taking a std::variant: a
// sink's interface then says in its declaration which records it acts on, the hot path costs one
// indirect call and no visit, and adding a record kind adds one default method instead of a
// case to every visitor.)
#pragma once

#include "model/records.h"

namespace rtrace {

class TraceSink {
 public:
  TraceSink() = default;
  TraceSink(const TraceSink&) = delete;
  TraceSink& operator=(const TraceSink&) = delete;
  virtual ~TraceSink() = default;

  virtual void header(const TraceHeader& /*header*/) {}
  virtual void process(const ProcessInfo& /*info*/) {}
  virtual void output_settings(const OutputSettings& /*settings*/) {}
  virtual void module(const ModuleInfo& /*module*/) {}
  virtual void mapping(const Mapping& /*mapping*/) {}
  virtual void context(const ContextInfo& /*context*/) {}
  virtual void resource_type(const ResourceType& /*type*/) {}
  virtual void symbol(SymbolId /*id*/, const Symbol& /*symbol*/) {}
  virtual void call(const CallRecord& /*record*/) {}
  virtual void group(const CallGroup& /*group*/) {}
  virtual void leak_summary(const LeakSummary& /*summary*/) {}
  virtual void heap_info(const HeapInfo& /*info*/) {}
  virtual void trace_end(const TraceEnd& /*end*/) {}
  virtual void leak_kinds(const LeakKinds& /*kinds*/) {}
  virtual void attachment(const Attachment& /*attachment*/) {}
  virtual void note(const Note& /*note*/) {}
  virtual void finish() = 0;
};

// Takes every record and keeps none: for a pass read only for its side effects (a reader's
// checks, what it collects on the way).
class DiscardingSink final : public TraceSink {
 public:
  void finish() override {}
};

// A stage that passes everything on unchanged; stages override what they act on.
class ForwardingSink : public TraceSink {
 public:
  explicit ForwardingSink(TraceSink& next) : next_(next) {}

  void header(const TraceHeader& header) override { next_.header(header); }
  void process(const ProcessInfo& info) override { next_.process(info); }
  void output_settings(const OutputSettings& settings) override { next_.output_settings(settings); }
  void module(const ModuleInfo& module) override { next_.module(module); }
  void mapping(const Mapping& mapping) override { next_.mapping(mapping); }
  void context(const ContextInfo& context) override { next_.context(context); }
  void resource_type(const ResourceType& type) override { next_.resource_type(type); }
  void symbol(SymbolId id, const Symbol& symbol) override { next_.symbol(id, symbol); }
  void call(const CallRecord& record) override { next_.call(record); }
  void group(const CallGroup& group) override { next_.group(group); }
  void leak_summary(const LeakSummary& summary) override { next_.leak_summary(summary); }
  void heap_info(const HeapInfo& info) override { next_.heap_info(info); }
  void trace_end(const TraceEnd& end) override { next_.trace_end(end); }
  void leak_kinds(const LeakKinds& kinds) override { next_.leak_kinds(kinds); }
  void attachment(const Attachment& attachment) override { next_.attachment(attachment); }
  void note(const Note& note) override { next_.note(note); }
  void finish() override { next_.finish(); }

 protected:
  TraceSink& next() { return next_; }

 private:
  TraceSink& next_;
};

}  // namespace rtrace
