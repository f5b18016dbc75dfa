// What the recorder tells the tracer inside the traced process, through RTRACE_OPTIONS.
#pragma once

#include <csignal>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/tracer_options.h"

namespace rtrace::recorder {

struct TracerSettings {
  // -b: backtrace frames, 0 = none; by default the sp-rtrace protocol's, as `compact` is off
  unsigned depth = tracer_options::kSpRtraceDefaultDepth;
  bool start = false;                  // -s: trace from the start instead of at the first toggle
  int signal = SIGUSR1;                // -S: the toggle signal
  bool free_backtraces = false;        // -A: backtraces for frees too
  bool timestamps = true;              // -T turns them off
  std::vector<std::uint64_t> sizes;    // -M: backtraces only for these sizes; empty = all
  bool buffered = true;                // -B turns buffering off
  bool follow_forks = false;           // -f
  bool arguments = false;              // function arguments (ARGS packets)
  bool compact = false;                // the compact format (docs/format.md), not sp-rtrace's
  bool leak_check = false;             // the leak check (compact only): leak kinds at the end
  std::uint64_t sample_bytes = 0;      // --sample-bytes: the memory module samples; 0: all
  int compress_level = 0;              // the compact trace as a zstd frame at this level; 0: none
  std::optional<std::string> managed;  // -m: the directory the process writes its trace into
  bool extensions = true;  // false: the tracer writes the original protocol only (no RCMD/REND)
  // The directory the traces go to, where modules write the files they attach to a trace (the
  // pagemap module); managed mode uses `managed`.
  std::optional<std::string> attachments;
  std::string audit_patterns;  // --audit: globs separated by ':' (the audit module)
  // The recorder passes each traced process the descriptor of its trace file, which the process
  // writes itself (no copy through the connection): when the recorder need not transform the
  // stream (RawTraceHandler without the sp-rtrace command's stripping)
  bool file_from_recorder = false;
};

// The RTRACE_OPTIONS value: comma-separated key=value pairs. Throws std::invalid_argument when a
// value cannot be expressed (a managed directory or audit patterns containing a comma, audit
// patterns longer than the tracer takes).
std::string format_tracer_options(const TracerSettings& settings);

}  // namespace rtrace::recorder
