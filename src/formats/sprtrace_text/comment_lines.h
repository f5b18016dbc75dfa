// The comment lines of the text protocol that carry records: `## tracing module`, the
// `## heap status information` block, and the summaries that -c and -l print
// (`# allocation summary`, `# Resource - ...`). Each parser returns false when the line does not
// have the exact form; the reader then keeps the line as a note.
#pragma once

#include <cstdint>
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
