#include "trace_decoder.h"

#include <gtest/gtest.h>

#include "formats/format_registry.h"
#include "formats/sprtrace_binary/binary_reader.h"
#include "formats/sprtrace_binary/binary_writer.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "io/output_stream.h"
#include "model/trace_sink.h"
#include "support/test_paths.h"

namespace rtrace::test {

void LeakChecker::call(const DecodedCall& call) {
  const auto counted = [&](std::uint64_t size) { return size >= lowest_ && size <= highest_; };
  if (call.kind == 2) {
    if (!live_.emplace(call.id, call.size).second) {
      ++double_allocations_;
    }
    counted_allocations_ += counted(call.size) ? 1 : 0;
  } else if (call.kind == 1 && call.id != 0) {
    const auto block = live_.find(call.id);
    if (block == live_.end()) {
      ++false_frees_;
      return;
    }
    counted_frees_ += counted(block->second) ? 1 : 0;
    live_.erase(block);
  }
}

// Fills a TraceDecoder from the records the binary reader pushes.
class DecodingSink final : public TraceSink {
 public:
  explicit DecodingSink(TraceDecoder& trace) : t_(trace) {}

  void header(const TraceHeader& header) override;
  void process(const ProcessInfo& info) override;
  void output_settings(const OutputSettings& settings) override;
  void module(const ModuleInfo& module) override;
  void mapping(const Mapping& mapping) override;
  void context(const ContextInfo& context) override;
  void resource_type(const ResourceType& type) override;
  void symbol(SymbolId id, const Symbol& symbol) override;
  void call(const CallRecord& record) override;
  void heap_info(const HeapInfo& info) override;
  void trace_end(const TraceEnd& end) override { t_.end = end; }
  void attachment(const Attachment& attachment) override;
  void note(const Note& note) override;
  void finish() override { t_.finished_ = true; }

 private:
  void record_packet(const char* type);
  TraceDecoder& t_;
};

void DecodingSink::record_packet(const char* type) {
  if (t_.call_count == 0) {
    t_.packet_order.emplace_back(type);
  }
  t_.last_was_map_ = false;
}

void DecodingSink::header(const TraceHeader& /*header*/) {}

void DecodingSink::process(const ProcessInfo& info) {
  record_packet("PINF");
  t_.pid = info.pid;
  t_.process = info.name;
  t_.depth = info.backtrace_depth.value_or(0);
  t_.command_line = info.command_line;
}

void DecodingSink::output_settings(const OutputSettings& /*settings*/) {
  record_packet("OCFG");
}

void DecodingSink::module(const ModuleInfo& m) {
  record_packet("MINF");
  t_.modules.emplace_back(
      m.id, m.name + " " + std::to_string(m.version_major) + "." + std::to_string(m.version_minor));
}

void DecodingSink::mapping(const Mapping& m) {
  if (t_.call_count > 0 && !t_.last_was_map_) {
    ++t_.map_snapshots;
  }
  record_packet("MMAP");
  t_.last_was_map_ = true;
  t_.mappings.push_back({m.from, m.to, m.path});
}

void DecodingSink::context(const ContextInfo& c) {
  record_packet("CTXR");
  t_.contexts.emplace_back(c.id, c.name);
}

void DecodingSink::resource_type(const ResourceType& t) {
  record_packet("RESR");
  t_.resources.push_back(std::to_string(t.id) + " " + std::to_string(t.flags) + " " + t.type +
                         " (" + t.description + ")");
}

void DecodingSink::symbol(SymbolId /*id*/, const Symbol& /*symbol*/) {
  t_.error_ += "a binary trace cannot hold symbols\n";
}

void DecodingSink::call(const CallRecord& record) {
  record_packet("CALL");
  ++t_.call_count;
  DecodedCall call;
  call.resource_type = record.call.resource_type;
  call.context = record.call.context;
  call.timestamp = static_cast<std::uint32_t>(record.call.timestamp_ns / 1'000'000);
  call.kind = static_cast<std::uint32_t>(record.call.kind);
  call.name = record.function;
  call.size = record.call.size;
  call.id = record.call.resource_id;
  call.thread = record.call.thread;
  for (const Frame& frame : record.frames) {
    call.frames.push_back(frame.address);
  }
  for (const Argument& a : record.arguments) {
    call.args.emplace_back(a.name, a.value);
  }
  if (t_.check_leaks_) {
    t_.leaks.call(call);
  }
  if (t_.keep_calls_) {
    t_.calls.push_back(std::move(call));
  }
}

void DecodingSink::heap_info(const HeapInfo& /*info*/) {
  record_packet("HINF");
  ++t_.heap_infos;
}

void DecodingSink::attachment(const Attachment& /*attachment*/) {
  record_packet("FILE");
}

void DecodingSink::note(const Note& /*note*/) {
  t_.error_ += "a binary trace cannot hold notes\n";
}

namespace {

// Either format the tracer writes, by content (rtrace record: compact; sp-rtrace: binary).
void read_into(InputStream& input, TraceSink& sink, std::string& error, std::string& warnings) {
  CollectingDiagnostics diagnostics;
  try {
    read_trace(input, sink, diagnostics);
  } catch (const std::exception& damage) {
    error += damage.what();
  }
  warnings += diagnostics.text();
}

}  // namespace

TraceDecoder decode_file(const std::string& path) {
  TraceDecoder decoder;
  const auto input = open_input(path);
  DecodingSink sink(decoder);
  read_into(*input, sink, decoder.error_, decoder.warnings_);
  if (!read_file(path).starts_with('\xF0')) {
    return decoder;  // a compact trace: read without warning means complete, END included
  }

  // Re-encode: the tracer's bytes must be exactly the canonical 2.0 layout.
  const ScratchDir scratch;
  const std::string copy = (scratch / "copy.rtrace").string();
  {
    OutputStream out(copy, {});
    BinaryWriter writer(out);
    const auto again = open_input(path);
    std::string ignored_error;
    std::string ignored_warnings;
    read_into(*again, writer, ignored_error, ignored_warnings);
    out.commit();
  }
  if (read_file(copy) != read_file(path)) {
    decoder.error_ += path + ": re-encoding the trace does not give the same bytes\n";
  }
  return decoder;
}

void decode_stream(int fd, TraceDecoder& decoder) {
  const auto input = open_input(std::make_unique<FdSource>(fd, false), "socket");
  DecodingSink sink(decoder);
  read_into(*input, sink, decoder.error_, decoder.warnings_);
}

bool frame0_in(const TraceDecoder& trace, const DecodedCall& call, const std::string& path) {
  for (const DecodedMapping& mapping : trace.mappings) {
    if (mapping.path == path && !call.frames.empty() && call.frames[0] >= mapping.from &&
        call.frames[0] < mapping.to) {
      return true;
    }
  }
  return false;
}

}  // namespace rtrace::test
