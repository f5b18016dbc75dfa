// The comment lines of the text protocol that carry records: `## tracing module`, the
// `## heap status information` block, and the summaries that -c and -l print
// (`# allocation summary`, `# Resource - ...`). Each parser returns false when the line does not
// have the exact form; the reader then keeps the line as a note.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/records.h"

namespace rtrace::sprtrace_text {

inline constexpr std::string_view kModulePrefix = "## tracing module: [";
inline constexpr std::string_view kHeapTitle = "## heap status information:";
inline constexpr std::string_view kGroupPrefix = "# allocation summary: ";
inline constexpr std::string_view kLeakTypePrefix = "# Resource - ";

// rtrace's lines for a stream of several processes (a StackTrack file, a merged trace), which the
// original keeps as comments: `## process: <header fields>` announces a process other than the
// header's (pid=, process=, timestamp=, backtrace depth= as in the header); `## pid=<pid>` says
// that the calls and maps after it belong to that process (the header's, until the first one).
inline constexpr std::string_view kProcessPrefix = "## process: ";
inline constexpr std::string_view kPidPrefix = "## pid=";

// rtrace's extensions, written from the RCMD and REND packets (docs/protocol-extensions.md):
// `## command line: <arguments, shell-quoted>` (`## command line (cut): ` when the tracer kept
// only the first arguments) right after the header line or the `## process:` line of its
// process; `## trace end: pid=<pid>, reason=<exit|toggle-off|_exit|signal|exec>[, signal=<n>],
// time=<seconds>.<microseconds>, peak rss=<bytes>, rss=<bytes>`.
inline constexpr std::string_view kCommandLinePrefix = "## command line: ";
inline constexpr std::string_view kCutCommandLinePrefix = "## command line (cut): ";
inline constexpr std::string_view kTraceEndPrefix = "## trace end: ";

// False when the line is not a command line or its quoting is broken.
bool parse_command_line_line(std::string_view line, CommandLine& command_line);
std::string format_command_line_line(const CommandLine& command_line);
bool parse_trace_end_line(std::string_view line, TraceEnd& end);
std::string format_trace_end_line(const TraceEnd& end);

// The leak check's kinds (rtrace record --leak-check), lines the original keeps as comments:
// `## leak kinds: pid=<pid>, blocks=<n>` (the check was made), then one line a block,
// `## leak kind: pid=<pid>, 0x<address> <definite|indirect|possible|reachable>`.
inline constexpr std::string_view kLeakKindsPrefix = "## leak kinds: ";
inline constexpr std::string_view kLeakKindPrefix = "## leak kind: ";
bool parse_leak_kinds_line(std::string_view line, std::uint32_t& pid);
bool parse_leak_kind_line(std::string_view line, std::uint32_t& pid, BlockKind& block);
std::string format_leak_kinds_lines(const LeakKinds& kinds);

// `## tracing module: [<hex id>] <name> (<major>.<minor>)`
bool parse_module_line(std::string_view line, ModuleInfo& module);

// The lines of a heap information block after its title, in order: `##   <label> <value>`.
inline constexpr std::size_t kHeapFieldCount = 14;
std::string_view heap_field_label(std::size_t field);
// Sets field number `field` (0-based, in the order printed) from `line`; false if the line is
// not that field.
bool parse_heap_field(std::string_view line, std::size_t field, HeapInfo& info);

// `# allocation summary: <blocks> block(s) with total size <size>`
bool parse_group_summary(std::string_view line, CallGroup& group);

// `# Resource - <type> (<description>):`
bool parse_leak_type_line(std::string_view line, LeakSummary& summary);
// `# <blocks> block(s) leaked with total size of <bytes> bytes`
bool parse_leak_total_line(std::string_view line, LeakSummary& summary);

}  // namespace rtrace::sprtrace_text
