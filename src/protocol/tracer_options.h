// The options the recorder gives the tracer in RTRACE_OPTIONS: a comma-separated `key=value`
// list. The recorder writes it (recorder/tracer_settings.cpp) and the tracer reads it
// (tracer/options.cpp); this is what both must agree on: the keys, the list separator inside a
// value, and the limits beyond which the tracer cuts or ignores a value (so that the recorder
// refuses such values up front instead).
// Header-only and free of allocation, so that the tracer can use it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rtrace::tracer_options {

namespace key {
inline constexpr char kDepth[] = "depth";                     // backtrace frames, 0 = none
inline constexpr char kStart[] = "start";                     // 1: trace from the start
inline constexpr char kSignal[] = "signal";                   // the toggle signal's number
inline constexpr char kFreeBacktraces[] = "free-backtraces";  // 1: backtraces of releases too
inline constexpr char kTimestamps[] = "timestamps";           // 0: no timestamps
inline constexpr char kBuffered[] = "buffered";               // 0: every event out at once
inline constexpr char kFollowForks[] = "follow-forks";        // 1: trace forked children
inline constexpr char kArgs[] = "args";                       // 1: function arguments
inline constexpr char kSizes[] = "sizes";                     // backtraces only for these sizes
inline constexpr char kManaged[] = "managed";                 // the process writes its files
inline constexpr char kExtensions[] = "extensions";           // 0: no RCMD/REND packets
inline constexpr char kAttachments[] = "attachments";         // where attached files go
inline constexpr char kCompact[] = "compact";                 // 1: the compact format
inline constexpr char kCompress[] = "compress";               // zstd level of a compact trace
inline constexpr char kAudit[] = "audit";                     // the audit module's patterns
inline constexpr char kFileFromRecorder[] = "file-from-recorder";  // 1: the recorder gives a file
inline constexpr char kLeakCheck[] = "leak-check";      // 1: classify the blocks left at the end
inline constexpr char kSampleBytes[] = "sample-bytes";  // N > 0: sample allocations every N bytes
}  // namespace key

// The tracing module a process attached by `rtrace record -p` registers besides main: its traces
// name it in their header (a module record), which tells the reports that the trace began while
// the process was running (blocks released without their allocation came from before).
inline constexpr char kAttachModuleName[] = "attach";

// The tracing module a trace of sampled allocations (sample-bytes=N) registers besides memory:
// its name, this prefix followed by N in decimal, tells every reader that each allocation was
// recorded with the probability 1 - exp(-size / N) and its release only when it was
// (model/sampling.h). A module record, which every format carries and old readers list as one
// more module, so the rate survives every conversion.
inline constexpr char kSampledModulePrefix[] = "sample-bytes=";

// ',' separates the keys, so the lists inside a value (sizes) use ';'.
inline constexpr char kListSeparator = ';';

// The most sizes `sizes` holds; later ones are ignored.
inline constexpr std::size_t kMaxSizes = 32;
// The deepest backtrace; the tracer cuts `depth` to it, the recorder refuses more (-b).
inline constexpr std::uint32_t kMaxDepth = 256;
// The backtrace depth when none is given. The compact format stores each distinct stack once,
// so whole stacks cost little and 64 frames reach the program's entry point (`_start`, a
// thread's start routine) in most programs, as heaptrack's stacks do. The sp-rtrace protocol
// repeats the frames in every call, and the original's tools and their users expect its 10.
inline constexpr std::uint32_t kCompactDefaultDepth = 64;
inline constexpr std::uint32_t kSpRtraceDefaultDepth = 10;
constexpr std::uint32_t default_depth(bool compact) {
  return compact ? kCompactDefaultDepth : kSpRtraceDefaultDepth;
}
// The highest zstd level `compress` takes; the tracer ignores higher ones.
inline constexpr std::uint64_t kMaxCompressLevel = 19;
// Room for `audit`'s patterns, the terminating NUL included; longer lists are ignored whole.
inline constexpr std::size_t kMaxAuditPatterns = 4096;

}  // namespace rtrace::tracer_options
