// A sink that describes every record it receives as one canonical line, so tests can compare
// what two readers (or a reader and a writer's round trip) produced.
#pragma once

#include <string>
#include <vector>

#include "pipeline/trace_sink.h"

namespace rtrace::test {

class RecordingSink final : public TraceSink {
 public:
  void handshake(const Handshake& h) override;
  void process_info(const ProcessInfo& info) override;
  void output_settings(const OutputSettings& settings) override;
  void module(const ModuleInfo& module) override;
  void mapping(const Mapping& mapping) override;
  void context(const ContextInfo& context) override;
  void resource_type(const ResourceType& type) override;
  void symbol(Address address, const SymbolInfo& symbol) override;
  void call(const CallRecord& record) override;
  void call_group(const CallGroup& group) override;
  void heap_info(const HeapInfo& info) override;
  void attachment(const Attachment& attachment) override;
  void comment(std::string_view text) override;
  void finish() override;

  const std::vector<std::string>& lines() const { return lines_; }
  // All lines joined with '\n' (handy in EXPECT_EQ failure output).
  std::string text() const;
  int finish_count() const { return finishes_; }
  std::size_t call_count() const { return calls_; }

 private:
  std::vector<std::string> lines_;
  int finishes_ = 0;
  std::size_t calls_ = 0;
};

}  // namespace rtrace::test
