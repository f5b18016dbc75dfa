// A sink that describes every record it receives as one canonical line, so tests can compare
// what two readers (or a reader and a writer's round trip) produced. Frames print with the
// symbol they name (by value, not by id: ids belong to one stream).
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "model/trace_sink.h"

namespace rtrace::test {

// A symbol as one canonical string: module, function, parameters, file, line, inline chain.
std::string describe_symbol(const Symbol& symbol);

class RecordingSink final : public TraceSink {
 public:
  void header(const TraceHeader& h) override;
  void process(const ProcessInfo& info) override;
  void output_settings(const OutputSettings& settings) override;
  void module(const ModuleInfo& module) override;
  void mapping(const Mapping& mapping) override;
  void context(const ContextInfo& context) override;
  void resource_type(const ResourceType& type) override;
  void symbol(SymbolId id, const Symbol& symbol) override;
  void call(const CallRecord& record) override;
  void group(const CallGroup& group) override;
  void leak_summary(const LeakSummary& summary) override;
  void heap_info(const HeapInfo& info) override;
  void trace_end(const TraceEnd& end) override;
  void attachment(const Attachment& attachment) override;
  void note(const Note& note) override;
  void finish() override;

  const std::vector<std::string>& lines() const { return lines_; }
  // All lines joined with '\n' (handy in EXPECT_EQ failure output).
  std::string text() const;
  int finish_count() const { return finishes_; }
  std::size_t call_count() const { return calls_; }
  // The symbols announced, by id.
  const std::unordered_map<SymbolId, Symbol>& symbols() const { return symbols_; }

 private:
  std::string describe_call(const CallRecord& record) const;

  std::vector<std::string> lines_;
  int finishes_ = 0;
  std::size_t calls_ = 0;
  std::uint32_t pid_ = 0;   // of the first process
  std::string start_text_;  // the text header's verbatim timestamp
  std::unordered_map<SymbolId, Symbol> symbols_;
};

}  // namespace rtrace::test
