// The push pipeline: readers push records into a sink, stages are sinks that forward to the next
// sink, writers are the last sink.
//
// Records arrive in stream order. Every call() carries a complete call (its arguments and
// backtrace attached). symbol() announces what is known about an address before the first call
// that uses it. finish() is called exactly once, after the last record, also when the input was
// truncated (everything complete before the damage has been delivered by then).
#pragma once

#include <string_view>

#include "model/records.h"

namespace rtrace {

class TraceSink {
 public:
  TraceSink() = default;
  TraceSink(const TraceSink&) = delete;
  TraceSink& operator=(const TraceSink&) = delete;
  virtual ~TraceSink() = default;

  virtual void handshake(const Handshake& handshake) = 0;
  virtual void process_info(const ProcessInfo& info) = 0;
  virtual void output_settings(const OutputSettings& settings) = 0;
  virtual void module(const ModuleInfo& module) = 0;
  virtual void mapping(const Mapping& mapping) = 0;
  virtual void context(const ContextInfo& context) = 0;
  virtual void resource_type(const ResourceType& type) = 0;
  virtual void symbol(Address address, const SymbolInfo& symbol) = 0;
  virtual void call(const CallRecord& record) = 0;
  // Compressed output: calls grouped by backtrace (emitted by the compress stage).
  virtual void call_group(const CallGroup& group) = 0;
  virtual void heap_info(const HeapInfo& info) = 0;
  virtual void attachment(const Attachment& attachment) = 0;
  // A comment line of the text protocol, verbatim without its newline.
  virtual void comment(std::string_view text) = 0;
  virtual void finish() = 0;
};

// A stage that passes everything on unchanged; stages override what they act on.
class ForwardingSink : public TraceSink {
 public:
  explicit ForwardingSink(TraceSink& next) : next_(next) {}

  void handshake(const Handshake& handshake) override { next_.handshake(handshake); }
  void process_info(const ProcessInfo& info) override { next_.process_info(info); }
  void output_settings(const OutputSettings& settings) override { next_.output_settings(settings); }
  void module(const ModuleInfo& module) override { next_.module(module); }
  void mapping(const Mapping& mapping) override { next_.mapping(mapping); }
  void context(const ContextInfo& context) override { next_.context(context); }
  void resource_type(const ResourceType& type) override { next_.resource_type(type); }
  void symbol(Address address, const SymbolInfo& symbol) override { next_.symbol(address, symbol); }
  void call(const CallRecord& record) override { next_.call(record); }
  void call_group(const CallGroup& group) override { next_.call_group(group); }
  void heap_info(const HeapInfo& info) override { next_.heap_info(info); }
  void attachment(const Attachment& attachment) override { next_.attachment(attachment); }
  void comment(std::string_view text) override { next_.comment(text); }
  void finish() override { next_.finish(); }

 protected:
  TraceSink& next() { return next_; }

 private:
  TraceSink& next_;
};

}  // namespace rtrace
