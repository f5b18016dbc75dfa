// Writer of the sp-rtrace text protocol, byte for byte as sp-rtrace-postproc prints it.
//
// The only place that prints frames, groups and leak summaries as text. Symbols print as the
// resolver's forms (`fn() at file:line`, `fn() from /module`); a frame with a symbol and no
// address prints as `0x0 fn() at file:line`. Timestamps are cut to whole milliseconds.
#pragma once

#include <memory>
#include <string>

#include "io/output_stream.h"
#include "model/trace_sink.h"

namespace rtrace {

enum class PreambleOrder : std::uint8_t {
  // As sp-rtrace-postproc: modules, contexts, resource types, memory maps, then comments.
  Original,
  // Text input only: in the order the lines were read, as sp-rtrace-resolve (which copies
  // lines) keeps them. Other input is written in the original order.
  AsRead,
};

struct TextWriterOptions {
  // The header's origin= when the input does not name one (binary input): our name and version.
  std::string origin;
  PreambleOrder preamble = PreambleOrder::Original;
};

class TextWriter final : public TraceSink {
 public:
  TextWriter(OutputStream& out, TextWriterOptions options);
  ~TextWriter() override;

  void header(const TraceHeader& header) override;
  void process(const ProcessInfo& info) override;
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
  void leak_kinds(const LeakKinds& kinds) override;
  void attachment(const Attachment& attachment) override;
  void note(const Note& note) override;
  void finish() override;

 private:
  class Printer;
  std::unique_ptr<Printer> printer_;
};

}  // namespace rtrace
