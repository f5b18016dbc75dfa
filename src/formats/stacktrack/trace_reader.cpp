#include "formats/stacktrack/trace_reader.h"

#include <array>
#include <string>
#include <unordered_set>
#include <vector>

#include "formats/stacktrack/default_layout.h"
#include "formats/stacktrack/event_decoder.h"

namespace rtrace::stacktrack {
namespace {

constexpr std::uint32_t kCheckpointType = 1;
constexpr std::uint64_t kNanosecondsPerSecond = 1'000'000'000;
// Every call carries exactly one frame, its scope: the backtrace depth of the whole trace.
constexpr std::uint32_t kFramesPerHit = 1;

const EntrySchema& default_schema() {
  static const EntrySchema schema(default_layout());
  return schema;
}

// A member of an entry of type `binding` by its meaning (0 when the type has none).
std::uint64_t member(const TypeBinding& binding, std::span<const std::uint64_t> values,
                     Field field) {
  const std::int8_t i = binding.field_index[static_cast<std::size_t>(field)];
  return i < 0 ? 0 : values[static_cast<std::size_t>(i)];
}

// Ticks since the process's start in nanoseconds; 0 (no time) while ticks per second are
// unknown or for a hit before the start.
std::uint64_t nanoseconds_since_start(const ProcessContext& process, std::uint64_t ticks) {
  const std::uint64_t divisor = process.ticks_per_second();
  if (divisor == 0 || ticks < process.start_ticks()) {
    return 0;
  }
  const auto delta = static_cast<unsigned __int128>(ticks - process.start_ticks());
  return static_cast<std::uint64_t>(delta * kNanosecondsPerSecond / divisor);
}

// The values of a HIT: its own entry's, or those kept with its completed INFO series.
struct Hit {
  std::uint64_t pid = 0;
  std::uint64_t sequence = 0;
  const TypeBinding* binding = nullptr;
  std::span<const std::uint64_t> values;
  const ProcessContext* process = nullptr;
  const std::string* info = nullptr;
};

class TraceReader {
 public:
  TraceReader(InputStream& input, TraceSink& sink, Diagnostics& diagnostics)
      : input_(input), sink_(sink), diagnostics_(diagnostics) {}

  void read() {
    sink_.header(TraceHeader{});
    sink_.resource_type(ResourceType{.id = kCheckpointType,
                                     .flags = 0,
                                     .type = "checkpoint",
                                     .description = "StackTrack checkpoint hits"});
    try {
      EventDecoder decoder(input_, default_schema(), diagnostics_);
      while (const Entry* entry = decoder.next()) {
        take(*entry);
      }
    } catch (const InputError&) {
      announce_remaining_processes();
      sink_.finish();
      throw;
    }
    announce_remaining_processes();
    sink_.finish();
  }

 private:
  void take(const Entry& entry) {
    switch (entry.kind) {
      case EntryKind::Hit:
        // A hit with text is delivered with it, once its INFO series is complete.
        if (!entry.has_info) {
          deliver({entry.pid, entry.sequence, entry.binding, entry.values, entry.process, nullptr});
        }
        break;
      case EntryKind::Info:
        if (entry.completed != nullptr && entry.completed->owner->kind == EntryKind::Hit) {
          const InfoSeries& series = *entry.completed;
          deliver({entry.pid, entry.sequence, series.owner, series.owner_values, entry.process,
                   &series.text});
        }
        break;
      case EntryKind::ProcInfo:
        if (known_.insert(entry.pid).second) {
          unannounced_.push_back(entry.pid);
        }
        break;
      case EntryKind::TimeInfo:
        announce(entry.pid, static_cast<std::int64_t>(entry.get(Field::Start)));
        break;
      default:
        break;
    }
  }

  void announce(std::uint64_t pid, std::int64_t start_seconds) {
    if (announced_.insert(pid).second) {
      known_.insert(pid);
      sink_.process(ProcessInfo{.pid = static_cast<std::uint32_t>(pid),
                                .name = {},
                                .start = {.seconds = start_seconds, .microseconds = 0},
                                .backtrace_depth = kFramesPerHit});
    }
  }

  // Processes that told their PROCINFO but neither a start time nor a hit.
  void announce_remaining_processes() {
    for (const std::uint64_t pid : unannounced_) {
      announce(pid, 0);
    }
    unannounced_.clear();
  }

  void deliver(const Hit& hit) {
    announce(hit.pid, 0);
    const std::uint64_t when = member(*hit.binding, hit.values, Field::When);
    const auto scope_index =
        static_cast<std::int64_t>(member(*hit.binding, hit.values, Field::ScopeIndex));
    const Scope* scope = hit.process->scope(scope_index);
    function_ = scope != nullptr && !scope->name.empty() ? scope->name
                                                         : "scope_" + std::to_string(scope_index);
    frame_ = Frame{.address = 0, .symbol = scope_symbol(*hit.process, scope)};
    if (hit.info != nullptr) {
      argument_ = Argument{.name = "info", .value = *hit.info};
    }
    const Call call{.index = hit.sequence,
                    .resource_id = 0,
                    .size = 0,
                    .timestamp_ns = nanoseconds_since_start(*hit.process, when),
                    .thread = member(*hit.binding, hit.values, Field::Tid),
                    .pid = static_cast<std::uint32_t>(hit.pid),
                    .context = 0,
                    .resource_type = kCheckpointType,
                    .kind = CallKind::Other};
    sink_.call(CallRecord{
        .call = call,
        .function = function_,
        .arguments = hit.info != nullptr ? std::span(&argument_, 1) : std::span<const Argument>(),
        .frames = std::span(&frame_, 1)});
  }

  // The scope as a symbol: its name (with `()` unless it has a parameter list, as sp-rtrace
  // shows C functions), its file and line; announced the first time it is used.
  SymbolId scope_symbol(const ProcessContext& process, const Scope* scope) {
    if (scope == nullptr || scope->name.empty()) {
      return kNoSymbol;
    }
    Symbol symbol;
    const auto [name, parameters] = split_parameters(scope->name);
    symbol.where.function = name;
    symbol.where.parameters = parameters.empty() ? std::string_view("()") : parameters;
    if (const SourceFile* file = process.file(scope->file); file != nullptr) {
      symbol.where.file = file->name;
    }
    symbol.where.line = scope->line > 0 ? static_cast<std::uint32_t>(scope->line) : 0;
    const SymbolTable::Interned interned = symbols_.intern(symbol);
    if (interned.added) {
      sink_.symbol(interned.id, symbol);
    }
    return interned.id;
  }

  InputStream& input_;
  TraceSink& sink_;
  Diagnostics& diagnostics_;
  SymbolTable symbols_;
  std::unordered_set<std::uint64_t> known_;
  std::unordered_set<std::uint64_t> announced_;
  std::vector<std::uint64_t> unannounced_;
  std::string function_;
  Frame frame_;
  Argument argument_;
};

}  // namespace

void read_trace(InputStream& input, TraceSink& sink, Diagnostics& diagnostics) {
  TraceReader(input, sink, diagnostics).read();
}

TraceFormatInfo trace_format() {
  return {
      .name = "stacktrack",
      .description = "Boost StackTrack raw event file",
      .suffix = {},
      .detect =
          [](std::span<const std::uint8_t> head) {
            return looks_like_stacktrack(head, default_schema());
          },
      .read = read_trace,
      .open_writer = nullptr,
      .losses = kLosesNothing,
  };
}

}  // namespace rtrace::stacktrack
