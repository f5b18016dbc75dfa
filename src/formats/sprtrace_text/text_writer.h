// Writer of the sp-rtrace text protocol, byte for byte as sp-rtrace-postproc prints it.
#pragma once

#include <memory>
#include <string>

#include "io/output_stream.h"
#include "pipeline/trace_sink.h"

namespace rtrace {

struct TextWriterOptions {
  // The header's origin= when the input does not name one (binary input): our name and version.
  std::string origin;
};

class TextWriter final : public TraceSink {
 public:
  TextWriter(OutputStream& out, TextWriterOptions options);
  ~TextWriter() override;

  void handshake(const Handshake& handshake) override;
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

 private:
  class Printer;
  std::unique_ptr<Printer> printer_;
};

}  // namespace rtrace
