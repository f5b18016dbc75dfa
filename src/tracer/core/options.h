// The tracer's settings, parsed from RTRACE_OPTIONS (a comma-separated key=value list set by the
// recorder) without allocating: the parse runs in a library constructor, before the real
// allocator is known.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>

#include "protocol/tracer_options.h"

namespace rtrace::tracer {

// The keys of RTRACE_OPTIONS, shared with the recorder, which writes them.
namespace option_key = tracer_options::key;

struct TracerOptions {
  static constexpr std::size_t kMaxSizes = tracer_options::kMaxSizes;
  static constexpr std::uint32_t kMaxDepth = tracer_options::kMaxDepth;
  static constexpr std::uint64_t kMaxCompressLevel = tracer_options::kMaxCompressLevel;

  // depth=N, 0 = no backtraces; without the key, the default of the format (compact=1: 64, the
  // sp-rtrace protocol: 10)
  std::uint32_t depth = tracer_options::kSpRtraceDefaultDepth;
  bool start = false;            // start=1: trace from the start (-s)
  int toggle_signal = 10;        // signal=N (SIGUSR1)
  bool free_backtraces = false;  // free-backtraces=1 (-A)
  bool timestamps = true;        // timestamps=0 (-T)
  bool buffered = true;          // buffered=0 (-B): every event goes out at once
  bool follow_forks = false;     // follow-forks=1 (-f)
  bool args = false;             // args=1
  bool extensions = true;  // extensions=0: no RCMD/REND, the original protocol only (sp-rtrace -m)
  bool compact = false;    // compact=1: the compact format, not sp-rtrace's
  // compress=N: the compact trace as one zstd frame at level N (1..19; 0: uncompressed)
  int compress_level = 0;
  // file-from-recorder=1: the recorder answers each connection with the descriptor of the file
  // the trace goes to, and the tracer writes it itself (trace_output.cpp); the connection only
  // says when the trace ended
  bool file_from_recorder = false;
  // leak-check=1 (with compact=1): keep the live blocks and classify them when the trace ends
  // (output/live_blocks.h, session/leak_check.h)
  bool leak_check = false;
  // sample-bytes=N: the memory module records an allocation with the probability of a Poisson
  // process of mean interval N bytes hitting it (0: every allocation)
  std::uint64_t sample_bytes = 0;
  std::uint64_t sizes[kMaxSizes] = {};  // sizes=N;M (-M): backtraces only for these sizes
  std::size_t size_count = 0;
  char managed_dir[PATH_MAX] = {};  // managed=<dir> (-m): write <dir>/<pid>-<n>.rtrace ourselves
  // attachments=<dir>: the directory the recorder writes the traces into, where modules put the
  // files they attach to a trace (FILE packets: the pagemap module). Managed mode: managed_dir.
  char attachment_dir[PATH_MAX] = {};
  // audit=<glob>[:<glob>...] (--audit): the functions the audit module traces (read by the
  // dynamic linker audit library, rtrace-audit-linker.so). Longer lists are ignored whole.
  static constexpr std::size_t kMaxAuditPatterns = tracer_options::kMaxAuditPatterns;
  char audit_patterns[kMaxAuditPatterns] = {};

  bool managed() const { return managed_dir[0] != '\0'; }
  // Where attachments go: null when no directory is known (they are then not written).
  const char* attachment_directory() const {
    return attachment_dir[0] != '\0' ? attachment_dir : managed() ? managed_dir : nullptr;
  }
  bool wants_backtrace_for_size(std::uint64_t size) const;
  // The frames a call gets (0: none): a release's under -A, an allocation's unless -M leaves
  // its size out. Inline: on every traced call (no -M is the common case).
  std::uint32_t backtrace_depth(bool release, std::uint64_t size) const {
    const bool wanted =
        release ? free_backtraces : size_count == 0 || wants_backtrace_for_size(size);
    return wanted ? depth : 0;
  }
};

// Parses `text` (may be null). Unknown keys and malformed values are ignored: a traced program
// must never fail because of its environment.
TracerOptions parse_options(const char* text);

}  // namespace rtrace::tracer
