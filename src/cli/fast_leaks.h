// The fast path of `rtrace process -l` on an sp-rtrace binary file: a first pass
// (filters/leaks_scan.h) finds the allocations still alive at the end reading only what decides
// it; the second decodes only the file's other packets and those calls, with the ordinary reader
// and through the ordinary stages, so the output is the general path's byte for byte.
//
// The second pass reads the stretches the scan kept, joined in memory (at most kMaxKeptBytes),
// with the calls' true indices and the warnings' true byte offsets put back. Whenever the fast
// path does not apply (standard input or a pipe, a compressed or other format, a filter that
// drops calls before the leaks stage, damage anywhere, a file changed between the passes) nothing
// has been written and the caller reads the trace the general way, which reports it as before.
// RTRACE_NO_FAST_PATH=1 in the environment forces the general path (tests and benchmarks compare
// the two).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/process_command.h"
#include "filters/leaks_scan.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "model/records.h"
#include "pipeline/trace_sink.h"

namespace rtrace::cli {

inline constexpr std::uint64_t kMaxKeptBytes = std::uint64_t{64} << 20;

// What the second pass reads: the kept stretches joined, and where each came from.
struct FastLeaksInput {
  std::string name;   // the input's name in messages
  std::string bytes;  // the kept stretches, in file order
  std::vector<LeaksScanPiece> pieces;
  std::vector<std::uint64_t> starts;  // where each piece starts in `bytes`
  std::uint64_t file_size = 0;
};

// Whether the options leave the calls before the leaks stage as they are (only then can the
// scan decide what leaks): -l without -C, -R, --include, --exclude, --call-address.
bool fast_leaks_applies(const ProcessOptions& options);

// The first pass over the mapped file that `trace` reads (the same mapping, not read by
// `trace` meanwhile) and the copying of what it kept; nothing when the general path must read
// `trace` (also when it is no mapped file: standard input, a pipe, a compressed file). With
// `show_progress`, the first pass draws the general path's progress line ("reading PATH").
std::optional<FastLeaksInput> prepare_fast_leaks(const InputStream& trace,
                                                 bool show_progress = false);

// The memory maps after the first call (as read_late_maps gives them for the whole file).
std::vector<Mapping> fast_late_maps(const FastLeaksInput& input);

// The second pass: pushes the trace's records into `sink`, as read_trace would for the stages
// of -l, and calls sink.finish().
void read_fast_leaks(const FastLeaksInput& input, TraceSink& sink, Diagnostics& diagnostics);

}  // namespace rtrace::cli
