// The trace model: every record a trace can hold, independent of any file format.
//
// Readers turn their input into these records and push them, in stream order, into a
// TraceSink (src/model/trace_sink.h). Writers turn them back into a format. The records are
// plain values; string_views and spans inside them point into the reader's buffers and are valid
// only for the duration of the sink call that receives them. A stage that keeps a record past
// that call must copy or intern what it keeps (see string_table.h and backtrace_table.h).
//
// What belongs to one format only (the sp-rtrace handshake's byte order, its protocol version,
// the text header's verbatim timestamp) travels as key/value metadata on the TraceHeader: a
// writer reads the keys it knows and ignores the rest (see metadata.h).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/metadata.h"
#include "model/symbol.h"

namespace rtrace {

using Address = std::uint64_t;

// Which post-processing stages have already run over a trace, so that a later run (and the
// reader of its output) knows what it is looking at: a leaks-only trace, calls grouped by
// backtrace, names attached to frames.
struct AppliedStages {
  bool leaks = false;
  bool compress = false;
  bool resolve = false;

  friend bool operator==(const AppliedStages&, const AppliedStages&) = default;
};

// The first record of every trace.
struct TraceHeader {
  std::string arch;  // machine of the traced process, e.g. "x86_64"; may be empty
  std::string
      origin;  // the tool that first wrote the trace; empty when the format has no such field
  AppliedStages applied;
  Metadata metadata;  // format-specific fields; keys are "<format>.<field>"
};

struct TimeOfDay {
  std::int64_t seconds = 0;  // since the Epoch
  std::uint32_t microseconds = 0;

  friend bool operator==(const TimeOfDay&, const TimeOfDay&) = default;
};

// The arguments a process was started with (its argv, from /proc/PID/cmdline).
struct CommandLine {
  std::vector<std::string> arguments{};
  bool cut = false;  // the tracer kept only the arguments that fit its buffer

  friend bool operator==(const CommandLine&, const CommandLine&) = default;
};

// A traced process. A stream may hold several (each call names its pid); most hold one.
struct ProcessInfo {
  std::uint32_t pid = 0;
  std::string name;  // what the original's PINF holds: argv[0]
  TimeOfDay start;
  std::optional<std::uint32_t> backtrace_depth;  // the tracer's configured depth, when known
  // Written only by rtrace's own tracer, which also ends each of its traces with a TraceEnd
  // record: a process with a command line and no TraceEnd is an incomplete trace (killed).
  std::optional<CommandLine> command_line{};
};

// The recorder's output directory and post-processor options (sp-rtrace toggle mode).
struct OutputSettings {
  std::string path;
  std::string options;
};

// A tracing module (main, memory, file, ...) that produced the trace.
struct ModuleInfo {
  std::uint32_t id = 0;
  std::uint16_t version_major = 0;
  std::uint16_t version_minor = 0;
  std::string name;
};

// An executable mapping of a module. Applies to every address of its process used after it.
struct Mapping {
  Address from = 0;
  Address to = 0;
  std::string path;
  std::uint32_t pid = 0;  // 0: the stream's only process
};

// A call context; `id` is its bit in a call's context mask.
struct ContextInfo {
  std::uint32_t id = 0;
  std::string name;
};

// A kind of resource. `id` is a small ordinal (1, 2, 3, ...); the text protocol shows it as the
// mask 1 << (id - 1).
struct ResourceType {
  static constexpr std::uint32_t kRefcount = 0x1;
  // Ids run from 1 to kMaxId: the text protocol names a type by the mask 1 << (id - 1), which a
  // reader of the other formats checks (a type outside is left out, with a warning).
  static constexpr std::uint32_t kMaxId = 64;
  static bool valid_id(std::uint32_t id) { return id >= 1 && id <= kMaxId; }

  std::uint32_t id = 0;
  std::uint32_t flags = 0;
  std::string type;
  std::string description;

  bool refcounted() const { return (flags & kRefcount) != 0; }
};

// What a call did: allocate or release a resource, enter or leave a scope (apitrace's frames,
// StackTrack's checkpoints), or anything else.
enum class CallKind : std::uint8_t { Other = 0, Free = 1, Alloc = 2, Enter = 3, Exit = 4 };

// One traced call, small and fixed-size.
struct Call {
  std::uint64_t index = 0;         // 1-based position in the raw stream; survives filtering
  Address resource_id = 0;         // what the allocator returned or the release was given
  std::uint64_t size = 0;          // allocations only
  std::uint64_t timestamp_ns = 0;  // monotonic clock in nanoseconds; 0 = none
  // Thread id as the format gives it (mpatrol: pthread_self() values, about 2^47; StackTrack: a
  // member of up to 8 bytes; apitrace: its thread number + 1); 0: unknown.
  std::uint64_t thread = 0;
  std::uint32_t pid = 0;            // 0: unknown (the stream's only process)
  std::uint32_t context = 0;        // mask of active contexts
  std::uint32_t resource_type = 0;  // ResourceType::id; 0 when the trace has a single type
  CallKind kind = CallKind::Other;
};

// One `name = value` argument of a call.
struct Argument {
  std::string_view name;
  std::string_view value;
};

// One backtrace entry: a return address, a symbol (SymbolId announced to the sink before this
// record), or both. Formats that record names instead of addresses (mpatrol, apitrace) give
// address 0 and a symbol.
struct Frame {
  Address address = 0;
  SymbolId symbol = kNoSymbol;

  friend bool operator==(const Frame&, const Frame&) = default;
};

// A call with everything attached to it: the function name, its arguments and its backtrace
// (innermost first).
struct CallRecord {
  Call call;
  std::string_view function;
  std::span<const Argument> arguments;
  std::span<const Frame> frames;
};

// Announces that the next `call_count` calls share one backtrace (compressed output, -c): they
// follow as ordinary call records, each with that backtrace. Sinks that do not care about
// grouping ignore this record and see the calls as usual.
struct CallGroup {
  std::uint64_t call_count = 0;
  std::uint64_t block_count = 0;  // calls counted as blocks (every call of the group)
  std::uint64_t total_size = 0;   // sum of their sizes
};

// What is still allocated of one resource type at the end of the trace (the leaks stage, -l).
struct LeakSummary {
  std::uint32_t resource_type = 0;  // ResourceType::id
  std::string type;
  std::string description;
  std::uint64_t blocks = 0;
  std::uint64_t bytes = 0;
};

// Heap statistics (mallinfo) of the traced process.
struct HeapInfo {
  Address heap_bottom = 0;
  Address heap_top = 0;
  Address lowest_block = 0;
  Address highest_block = 0;
  std::uint32_t arena = 0;
  std::uint32_t ordblks = 0;
  std::uint32_t smblks = 0;
  std::uint32_t hblks = 0;
  std::uint32_t hblkhd = 0;
  std::uint32_t usmblks = 0;
  std::uint32_t fsmblks = 0;
  std::uint32_t uordblks = 0;
  std::uint32_t fordblks = 0;
  std::uint32_t keepcost = 0;
};

// Why a trace ended.
enum class EndReason : std::uint8_t {
  Exit = 1,       // exit() or a return from main
  ToggleOff = 2,  // tracing toggled off: what is allocated was alive then, not leaked
  FastExit = 3,   // _exit() or quick_exit(): no exit handlers ran
  Signal = 4,     // a fatal signal (a crash, or SIGTERM, SIGINT...): `signal` says which
  Exec = 5,       // the process replaced its image (the new image starts a new trace)
  NoSpace = 6,    // the trace's file system was full: tracing stopped there, the program ran on
};

// The last record of a trace written by rtrace's tracer, when the process closes the trace
// itself. A trace that should have one (its process has a command line) and lacks it ended
// without the tracer seeing it: the process was killed (SIGKILL) or the connection broke.
struct TraceEnd {
  std::uint32_t pid = 0;
  EndReason reason = EndReason::Exit;
  std::uint32_t signal = 0;          // EndReason::Signal only
  TimeOfDay time{};                  // wall clock when the trace ended
  std::uint64_t peak_rss_bytes = 0;  // VmHWM: the process's peak resident set; 0 = unknown
  std::uint64_t rss_bytes = 0;       // VmRSS at the end; 0 = unknown

  friend bool operator==(const TraceEnd&, const TraceEnd&) = default;
};

// The words `## trace end: reason=...` and the reports use for a reason; nullopt for none.
std::string_view end_reason_name(EndReason reason);
std::optional<EndReason> end_reason_from_name(std::string_view name);

// The leak kinds of valgrind memcheck, in its order (definitely lost first). Unknown: the
// trace holds no leak check for the block's process (older traces, other formats).
enum class LeakKind : std::uint8_t {
  Unknown = 0,
  Definite = 1,
  Indirect = 2,
  Possible = 3,
  Reachable = 4
};
inline constexpr LeakKind kLeakKinds[] = {LeakKind::Definite, LeakKind::Indirect,
                                          LeakKind::Possible, LeakKind::Reachable};

struct BlockKind {
  std::uint64_t resource_id = 0;
  LeakKind kind = LeakKind::Unknown;

  friend bool operator==(const BlockKind&, const BlockKind&) = default;
};

// The leak check's verdict (rtrace record --leak-check) on blocks of memory a process had not
// released when its trace ended, ascending by address. A process may have several of these
// records; one without blocks still says that the check was made.
struct LeakKinds {
  std::uint32_t pid = 0;
  std::span<const BlockKind> blocks;
};

// valgrind's words for a kind ("definitely lost", ...), and the option's ("definite", ...).
std::string_view leak_kind_name(LeakKind kind);
std::string_view leak_kind_option(LeakKind kind);
std::optional<LeakKind> leak_kind_from_option(std::string_view word);

// A file bundled with the trace.
struct Attachment {
  std::string name;
  std::string path;
};

// Free text the input carried that no other record holds (a comment line of the text
// protocol). Writers that have no place for it leave it out.
struct Note {
  std::string_view text;
};

}  // namespace rtrace
