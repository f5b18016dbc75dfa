#include "formats/apitrace/apitrace_format.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "formats/apitrace/call_dumper.h"
#include "formats/apitrace/container.h"
#include "formats/apitrace/decoder.h"
#include "formats/apitrace/object_lifetime_stage.h"
#include "formats/apitrace/stream_sniffer.h"
#include "model/symbol.h"

namespace rtrace {
namespace {

using apitrace::Call;

// The InputStream's bytes as a ByteSource for the apitrace container (the InputStream has already
// undone gzip and zstd, so those arrive as a plain call stream; the Snappy and Brotli containers
// pass through it untouched).
class InputStreamSource final : public ByteSource {
 public:
  explicit InputStreamSource(InputStream& input) : input_(input) {}
  std::size_t read(std::span<std::uint8_t> buffer) override {
    const std::span<const std::uint8_t> got =
        input_.peek(std::min(buffer.size(), std::size_t{64} << 10));
    const std::size_t n = std::min(got.size(), buffer.size());
    std::memcpy(buffer.data(), got.data(), n);
    input_.consume(n);
    return n;
  }

 private:
  InputStream& input_;
};

// Turns decoded calls into call records.
class CallConverter {
 public:
  explicit CallConverter(TraceSink& sink)
      : sink_(sink),
        dumper_(apitrace::DumpOptions{.color = false,
                                      .thread_ids = false,
                                      .call_numbers = false,
                                      .arg_names = true,
                                      .multiline = false,
                                      .blobs = false}) {}

  void header(const apitrace::TraceHeader& trace) {
    TraceHeader header;
    header.origin = "apitrace";
    header.metadata.set("apitrace.version", std::to_string(trace.version));
    std::string name;
    for (const auto& [key, value] : trace.properties) {
      header.metadata.set("apitrace." + key, value);
      if (key == "process.name") {
        name = value;
      }
    }
    sink_.header(header);
    if (!name.empty()) {
      sink_.process(ProcessInfo{.pid = 0, .name = name, .start = {}, .backtrace_depth = {}});
    }
  }

  void call(const Call& call) {
    values_.clear();
    names_.clear();
    const std::size_t count = std::min(call.args.size(), call.signature->arg_names.size());
    for (std::size_t i = 0; i < count; ++i) {
      if (call.args[i] >= 0) {
        names_.push_back(call.signature->arg_names[i]);
        values_.push_back(text_of(call, call.value(call.args[i])));
      }
    }
    if (call.ret >= 0) {
      names_.emplace_back("return");  // a C keyword: never a parameter's name
      values_.push_back(text_of(call, call.value(call.ret)));
    }
    arguments_.clear();
    for (std::size_t i = 0; i < names_.size(); ++i) {
      arguments_.push_back(Argument{.name = names_[i], .value = values_[i]});
    }
    frames_.clear();
    for (const apitrace::StackFrame* frame : call.backtrace) {
      frames_.push_back(Frame{.address = 0, .symbol = symbol_of(*frame)});
    }
    CallRecord record;
    record.call.index = call.number;
    record.call.thread = call.thread + 1;
    record.function = call.signature->name;
    record.arguments = arguments_;
    record.frames = frames_;
    sink_.call(record);
  }

 private:
  std::string text_of(const Call& call, const apitrace::Value& value) {
    std::string text;
    dumper_.value_of(call, value, text);
    return text;
  }

  SymbolId symbol_of(const apitrace::StackFrame& frame) {
    Symbol symbol;
    symbol.module = frame.module.value_or("");
    const std::string printed = frame.function.value_or("");  // "foo(int)"
    const auto [function, parameters] = split_parameters(printed);
    symbol.where.function = function;
    symbol.where.parameters = parameters;
    symbol.where.file = frame.file.value_or("");
    symbol.where.line = static_cast<std::uint32_t>(frame.line.value_or(0));
    const SymbolTable::Interned interned = symbols_.intern(symbol);
    if (interned.added) {
      sink_.symbol(interned.id, symbol);
    }
    return interned.id;
  }

  TraceSink& sink_;
  apitrace::CallDumper dumper_;
  SymbolTable symbols_;
  std::vector<std::string> names_;
  std::vector<std::string> values_;
  std::vector<Argument> arguments_;
  std::vector<Frame> frames_;
};

}  // namespace

void read_apitrace(InputStream& input, TraceSink& sink, Diagnostics& diagnostics) {
  // Input that is not an apitrace trace throws here, before the sink has heard anything.
  const apitrace::OpenedTrace opened = apitrace::open_trace(
      std::make_unique<InputStreamSource>(input), input.name(), 0, diagnostics);
  apitrace::Decoder decoder(*opened.stream, diagnostics, opened.check_end);

  apitrace::ObjectLifetimeStage objects(sink);
  CallConverter converter(objects);
  converter.header(decoder.header());
  try {
    while (const apitrace::Call* call = decoder.next()) {
      converter.call(*call);
    }
  } catch (const InputError&) {
    objects.finish();
    throw;
  }
  objects.finish();
}

TraceFormatInfo apitrace_format() {
  return {
      .name = "apitrace",
      .description = "apitrace trace",
      .suffix = ".trace",
      // The Snappy container, or a call stream without one: what the input layer makes of the
      // gzip and zstd containers.
      .detect =
          [](std::span<const std::uint8_t> head) {
            return starts_with(head, "at") || apitrace::looks_like_call_stream(head);
          },
      // The Brotli container has no magic number: decompress its start and look.
      .probe =
          [](InputStream& input) {
            constexpr std::size_t kProbeBytes = std::size_t{256} << 10;
            return apitrace::looks_like_brotli_call_stream(input.peek(kProbeBytes));
          },
      .read = read_apitrace,
      .open_writer = nullptr,
      .losses = kLosesNothing,
  };
}

}  // namespace rtrace
