#include "formats/mpatrol/mpatrol_model_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>

#include "formats/mpatrol/mpatrol_decoder.h"
#include "formats/mpatrol/mpatrol_event.h"

namespace rtrace::mpatrol {
namespace {

// "1.5.1" for 10501.
std::string version_text(std::uint64_t version) {
  return fmt::format("{}.{}.{}", version / 10000, version / 100 % 100, version % 100);
}

std::uint32_t saturated(std::uint64_t value) {
  return static_cast<std::uint32_t>(
      std::min<std::uint64_t>(value, std::numeric_limits<std::uint32_t>::max()));
}

// The system memory the `H` and `I` records describe, as heap information: the program's heap
// (H) is mallinfo's non-mapped space between heap bottom and top; mpatrol's own tables (I) are
// mapped regions. Counters saturate at 2^32 - 1 (the model's mallinfo fields are 32 bits).
class HeapSummary {
 public:
  void add(const Event& event) {
    changed_ = true;
    if (event.type == RecordType::Reserve) {
      bottom_ = any_reserve_ ? std::min(bottom_, event.address) : event.address;
      top_ = std::max(top_, event.address + event.size);
      any_reserve_ = true;
      reserve_bytes_ += event.size;
    } else {
      ++internal_count_;
      internal_bytes_ += event.size;
    }
  }
  // Whether H or I records arrived since the last take().
  bool changed() const { return changed_; }
  HeapInfo take() {
    changed_ = false;
    return HeapInfo{.heap_bottom = bottom_,
                    .heap_top = top_,
                    .arena = saturated(reserve_bytes_),
                    .hblks = saturated(internal_count_),
                    .hblkhd = saturated(internal_bytes_)};
  }

 private:
  bool changed_ = false;
  bool any_reserve_ = false;
  Address bottom_ = 0;
  Address top_ = 0;
  std::uint64_t reserve_bytes_ = 0;
  std::uint64_t internal_count_ = 0;
  std::uint64_t internal_bytes_ = 0;
};

// A block the program has not freed yet.
struct LiveBlock {
  Address address = 0;
  std::uint64_t size = 0;
};

// The decoder's events as model records.
class ModelAdapter final : public Visitor {
 public:
  ModelAdapter(TraceSink& sink, Diagnostics& diagnostics, std::string input_name,
               const ModelReaderLimits& limits)
      : sink_(sink),
        diagnostics_(diagnostics),
        input_name_(std::move(input_name)),
        limits_(limits) {}

  void header(const Header& header) override { header_ = header; }

  void event(const Event& event) override {
    switch (event.type) {
      case RecordType::Reserve:
      case RecordType::Internal:
        heap_.add(event);
        return;
      case RecordType::Alloc:
        start();
        return allocate(event);
      case RecordType::Realloc:
        start();
        return reallocate(event);
      case RecordType::Free:
        start();
        return release(event);
    }
  }

  void end(Ending /*ending*/) override { flush(); }

  // Delivers what is held back (a trace without events; system memory taken after the first
  // event), also for damaged input.
  void flush() {
    start();
    if (heap_.changed()) {
      sink_.heap_info(heap_.take());
    }
  }

 private:
  // The header, the resource type and the system memory taken so far go out before the first
  // call: the H and I records mpatrol took at start-up come first in the file.
  void start() {
    if (started_) {
      return;
    }
    started_ = true;
    TraceHeader header;
    if (header_) {
      const std::string version = version_text(header_->version);
      header.origin = "mpatrol " + version;
      header.metadata.set("mpatrol.version", version);
      header.metadata.set("mpatrol.version_number", std::to_string(header_->version));
      header.metadata.set("mpatrol.byte_order", header_->big_endian ? "big" : "little");
      header.metadata.set("mpatrol.word_size", std::to_string(header_->word_size));
    }
    sink_.header(header);
    // The file names no process. The sp-rtrace formats always carry one, with a backtrace
    // depth: say so here, so that a trace written in them reads back the same. The depth is
    // 1: a call's backtrace is at most the one source position mpatrol records.
    sink_.process(ProcessInfo{.pid = 0, .name = {}, .start = {}, .backtrace_depth = 1});
    sink_.resource_type(ResourceType{.id = kMemoryType,
                                     .flags = 0,
                                     .type = "memory",
                                     .description = "memory allocation in bytes"});
    if (heap_.changed()) {
      sink_.heap_info(heap_.take());
    }
  }

  void allocate(const Event& event) {
    auto [block, created] = live_.try_emplace(event.index);
    if (!created) {
      warn(event, fmt::format("allocation index {} has been allocated twice without being freed",
                              event.index));
    }
    block->second = LiveBlock{.address = event.address, .size = event.size};
    emit(event, kAllocFunction, CallKind::Alloc, event.address, event.size, true);
  }

  void reallocate(const Event& event) {
    const auto block = live_.find(event.index);
    if (block == live_.end()) {
      warn(event, fmt::format("unknown allocation index {} (never allocated or already freed)",
                              event.index));
      return;
    }
    emit(event, kReallocFunction, CallKind::Free, block->second.address, 0, false);
    emit(event, kReallocFunction, CallKind::Alloc, event.address, event.size, true);
    block->second = LiveBlock{.address = event.address, .size = event.size};
  }

  void release(const Event& event) {
    const auto block = live_.find(event.index);
    if (block == live_.end()) {
      warn(event, fmt::format("unknown allocation index {} (never allocated or already freed)",
                              event.index));
      return;
    }
    emit(event, kFreeFunction, CallKind::Free, block->second.address, 0, true);
    live_.erase(block);
  }

  void emit(const Event& event, std::string_view function, CallKind kind, Address resource,
            std::uint64_t size, bool with_frame) {
    const Call call{.index = ++calls_,
                    .resource_id = resource,
                    .size = size,
                    .timestamp_ns = 0,       // mpatrol records no time
                    .thread = event.thread,  // pthread_self(); 0: none recorded
                    .pid = 0,
                    .context = 0,
                    .resource_type = kMemoryType,
                    .kind = kind};
    std::array<Frame, 1> frame{};
    std::size_t frames = 0;
    if (with_frame) {
      const SymbolId symbol = source_symbol(event);
      if (symbol != kNoSymbol) {
        frame[0] = Frame{.address = 0, .symbol = symbol};
        frames = 1;
      }
    }
    sink_.call(CallRecord{.call = call,
                          .function = function,
                          .arguments = {},
                          .frames = std::span<const Frame>(frame.data(), frames)});
  }

  // The symbol of the event's function, file and line, announced the first time; none when the
  // event has no function and no file (a line alone names nothing).
  SymbolId source_symbol(const Event& event) {
    if (event.function.empty() && event.file.empty()) {
      return kNoSymbol;
    }
    const std::uint32_t line = event.file.empty() ? 0 : saturated(event.line);
    // Names are NUL-terminated in the file, so NUL separates them unambiguously.
    std::string key = fmt::format("{}{}{}{}{}", event.function, '\0', event.file, '\0', line);
    const auto known = symbol_ids_.find(key);
    if (known != symbol_ids_.end()) {
      return known->second;
    }
    if (symbol_ids_.size() >= limits_.symbols) {
      if (!symbols_full_warned_) {
        symbols_full_warned_ = true;
        warn(event, fmt::format("more than {} distinct source positions: frames of new ones are "
                                "left out",
                                limits_.symbols));
      }
      return kNoSymbol;
    }
    Symbol symbol;
    auto [function, parameters] = split_parameters(event.function);
    symbol.where.function = function;
    // A C function name has no parameter list; the text protocol prints frames as `name()`.
    symbol.where.parameters =
        parameters.empty() && !function.empty() ? std::string_view("()") : parameters;
    symbol.where.file = event.file;
    symbol.where.line = line;
    const auto id = static_cast<SymbolId>(symbol_ids_.size() + 1);
    symbol_ids_.emplace(std::move(key), id);
    sink_.symbol(id, symbol);
    return id;
  }

  void warn(const Event& event, std::string_view message) {
    diagnostics_.warning(input_name_, event.offset, message);
  }

  TraceSink& sink_;
  Diagnostics& diagnostics_;
  std::string input_name_;
  ModelReaderLimits limits_;
  std::optional<Header> header_;
  bool started_ = false;
  HeapSummary heap_;
  std::unordered_map<std::uint64_t, LiveBlock> live_;  // by allocation index
  std::uint64_t calls_ = 0;
  std::unordered_map<std::string, SymbolId> symbol_ids_;  // "function\0file\0line" -> id
  bool symbols_full_warned_ = false;
};

}  // namespace

void read_mpatrol(InputStream& input, TraceSink& sink, Diagnostics& diagnostics,
                  const ModelReaderLimits& limits) {
  ModelAdapter adapter(sink, diagnostics, input.name(), limits);
  try {
    decode(input, adapter, diagnostics);
  } catch (const InputError&) {
    // Everything before the damage has been delivered; a file damaged before its first event
    // still makes a (callless) trace, as a damaged sp-rtrace file does.
    adapter.flush();
    sink.finish();
    throw;
  }
  sink.finish();
}

void read_mpatrol_trace(InputStream& input, TraceSink& sink, Diagnostics& diagnostics) {
  read_mpatrol(input, sink, diagnostics, ModelReaderLimits{});
}

}  // namespace rtrace::mpatrol
