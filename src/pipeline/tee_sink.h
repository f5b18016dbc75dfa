// A sink that hands every record to two sinks, in order: one pass over a trace feeds two
// consumers (the report and the HTML report's timeline and flame graph).
#pragma once

#include "model/trace_sink.h"

namespace rtrace {

class TeeSink final : public TraceSink {
 public:
  TeeSink(TraceSink& first, TraceSink& second) : first_(first), second_(second) {}

  void header(const TraceHeader& h) override {
    both([&](TraceSink& s) { s.header(h); });
  }
  void process(const ProcessInfo& info) override {
    both([&](TraceSink& s) { s.process(info); });
  }
  void output_settings(const OutputSettings& settings) override {
    both([&](TraceSink& s) { s.output_settings(settings); });
  }
  void module(const ModuleInfo& m) override {
    both([&](TraceSink& s) { s.module(m); });
  }
  void mapping(const Mapping& m) override {
    both([&](TraceSink& s) { s.mapping(m); });
  }
  void context(const ContextInfo& c) override {
    both([&](TraceSink& s) { s.context(c); });
  }
  void resource_type(const ResourceType& type) override {
    both([&](TraceSink& s) { s.resource_type(type); });
  }
  void symbol(SymbolId id, const Symbol& symbol) override {
    both([&](TraceSink& s) { s.symbol(id, symbol); });
  }
  void call(const CallRecord& record) override {
    both([&](TraceSink& s) { s.call(record); });
  }
  void group(const CallGroup& g) override {
    both([&](TraceSink& s) { s.group(g); });
  }
  void leak_summary(const LeakSummary& summary) override {
    both([&](TraceSink& s) { s.leak_summary(summary); });
  }
  void heap_info(const HeapInfo& info) override {
    both([&](TraceSink& s) { s.heap_info(info); });
  }
  void trace_end(const TraceEnd& end) override {
    both([&](TraceSink& s) { s.trace_end(end); });
  }
  void leak_kinds(const LeakKinds& kinds) override {
    both([&](TraceSink& s) { s.leak_kinds(kinds); });
  }
  void attachment(const Attachment& a) override {
    both([&](TraceSink& s) { s.attachment(a); });
  }
  void note(const Note& n) override {
    both([&](TraceSink& s) { s.note(n); });
  }
  void finish() override {
    both([](TraceSink& s) { s.finish(); });
  }

 private:
  template <typename F>
  void both(const F& deliver) {
    deliver(first_);
    deliver(second_);
  }

  TraceSink& first_;
  TraceSink& second_;
};

}  // namespace rtrace
