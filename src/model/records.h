// The trace model: every record a trace can hold, independent of any file format.
//
// Readers turn their input into these records and push them, in stream order, into a
// TraceSink (src/pipeline/trace_sink.h). Writers turn them back into a format. The records are
// plain values; string_views and spans inside them point into the reader's buffers and are valid
// only for the duration of the sink call that receives them. A stage that keeps a record past
// that call must copy or intern what it keeps (see string_table.h and backtrace_table.h).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rtrace {

using Address = std::uint64_t;

enum class ByteOrder : std::uint8_t { Little = 0, Big = 1 };

struct ProtocolVersion {
  std::uint8_t major = 2;
  std::uint8_t minor = 0;

  friend auto operator<=>(const ProtocolVersion&, const ProtocolVersion&) = default;
};

// Which post-processing filters have been applied to a trace; recorded in the text header's
// `filter=` field so that a later run knows what it is looking at.
struct FilterSet {
  bool leaks = false;
  bool compress = false;
  bool resolve = false;

  friend bool operator==(const FilterSet&, const FilterSet&) = default;
};

// What the binary handshake says, plus the history of the trace (who wrote it first, which
// filters were applied) that the text header carries.
struct Handshake {
  ProtocolVersion version;
  std::string arch;  // e.g. "x86_64"
  ByteOrder byte_order = ByteOrder::Little;
  std::uint8_t pointer_size = 8;
  std::string origin;  // the tool that first wrote the trace; empty for binary input
  FilterSet filters;
};

struct TimeOfDay {
  std::int64_t seconds = 0;  // since the Epoch
  std::uint32_t microseconds = 0;
};

// PINF: the traced process.
struct ProcessInfo {
  std::uint32_t pid = 0;
  std::string name;
  TimeOfDay start;
  // Text input keeps the header's timestamp verbatim so that text -> text never depends on the
  // local time zone; empty when the trace came from binary data.
  std::string start_text;
  std::optional<std::uint32_t> backtrace_depth;  // present from protocol 1.2
};

// OCFG: the recorder's output directory and post-processor options (binary traces only).
struct OutputSettings {
  std::string path;
  std::string options;
};

// MINF: a tracing module (main, memory, file, ...).
struct ModuleInfo {
  std::uint32_t id = 0;
  std::uint16_t version_major = 0;
  std::uint16_t version_minor = 0;
  std::string name;
};

// MMAP: an executable mapping of a module. Applies to every address used after it.
struct Mapping {
  Address from = 0;
  Address to = 0;
  std::string path;
};

// CTXR: a call context; `id` is its bit in a call's context mask.
struct ContextInfo {
  std::uint32_t id = 0;
  std::string name;
};

// RESR: a kind of resource. `id` is a small ordinal (1, 2, 3, ...); the text protocol shows it as
// the mask 1 << (id - 1).
struct ResourceType {
  static constexpr std::uint32_t kRefcount = 0x1;

  std::uint32_t id = 0;
  std::uint32_t flags = 0;
  std::string type;
  std::string description;

  bool refcounted() const { return (flags & kRefcount) != 0; }
};

enum class CallKind : std::uint8_t { Other = 0, Free = 1, Alloc = 2 };

// One traced call, small and fixed-size.
struct Call {
  std::uint64_t index = 0;          // 1-based position in the raw stream; survives filtering
  Address resource_id = 0;          // what the allocator returned or the release was given
  std::uint64_t size = 0;           // allocations only
  std::uint32_t timestamp_ms = 0;   // monotonic clock in ms; 0 = none
  std::uint32_t context = 0;        // mask of active contexts
  std::uint32_t resource_type = 0;  // ResourceType::id; 0 when the trace has a single type
  CallKind kind = CallKind::Other;
};

// ARGS: one `$name = value` pair.
struct Argument {
  std::string_view name;
  std::string_view value;
};

// A call with everything attached to it: the function name, its arguments and its backtrace
// (return addresses, innermost first).
struct CallRecord {
  Call call;
  std::string_view function;
  std::span<const Argument> arguments;
  std::span<const Address> frames;
};

// Calls that share one backtrace, as compressed output (-c) shows them: the calls (their own
// frames empty, in index order), then the group's summary and backtrace.
struct CallGroup {
  std::span<const CallRecord> calls;
  std::span<const Address> frames;
  std::uint64_t block_count = 0;  // "# allocation summary: <block_count> block(s)
  std::uint64_t total_size = 0;   //  with total size <total_size>"
};

// What a resolver (or resolved text input) knows about one return address.
struct SymbolInfo {
  enum class Where : std::uint8_t {
    Module,   // `function() from /path/module` (symbol table), or `from /path` if no function
    Source,   // `function() at file.c:42` (debug information)
    Unknown,  // `in ??`: outside every mapping
  };
  std::string function;  // as printed, parameters included: "main()", "foo(int)"; may be empty
  Where where = Where::Module;
  std::string location;  // the module path, or "file:line"; empty for Unknown

  // Source form only: when `function` was inlined at this address, the calls that inlined it,
  // innermost first, each with the caller and the "file:line" of the call. The text protocol
  // appends each as ` (inlined by caller() at file:line)` to the frame line.
  struct InlinedCall {
    std::string function;
    std::string location;
  };
  std::vector<InlinedCall> inlined_by;
};

// HINF: heap statistics (mallinfo) at the end of the trace.
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

// FILE: a file bundled with the trace.
struct Attachment {
  std::string name;
  std::string path;
};

}  // namespace rtrace
