// mpatrol tracing files read into the trace model, so that every stage, report and writer of
// rtrace works on them.
//
// What each record becomes (rtrace-process(1) documents it for users):
// - the header: TraceHeader with origin "mpatrol X.Y.Z" and metadata mpatrol.version,
//   mpatrol.version_number, mpatrol.byte_order and mpatrol.word_size; one resource type,
//   `memory` (id 1), as the sp-rtrace memory module registers it. The file names no process:
//   an unnamed one of pid 0 with backtrace depth 1 (the one source frame) stands for it.
// - `A`: an allocation `alloc(size) = address`. Its function, file and line (1.4.5+ files)
//   become one frame: address 0 and a symbol {function, file, line}.
// - `F`: a release `free(address)` of the block with that allocation index, with its frame.
// - `R`: what sp-rtrace writes for a realloc: `realloc(old address)` releasing the old block,
//   then `realloc(size) = new address` with the frame.
// - `H` (heap memory mpatrol took from the system for the program) and `I` (memory for its own
//   tables): heap information, never calls, so they are never leaks. See heap_summary below.
//
// Memory stays bounded by what the trace has alive: the blocks not yet freed and the distinct
// source positions (capped; see ModelReaderLimits). Thread ids (pthread_self() values) pass into
// the model's 64-bit thread field as they are.
#pragma once

#include <cstddef>

#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "model/trace_sink.h"

namespace rtrace::mpatrol {

// The model's names for what mpatrol records.
inline constexpr std::string_view kAllocFunction = "alloc";
inline constexpr std::string_view kFreeFunction = "free";
inline constexpr std::string_view kReallocFunction = "realloc";
inline constexpr std::uint32_t kMemoryType = 1;

struct ModelReaderLimits {
  // Distinct source positions given a symbol; past it, frames of new positions are left out
  // (one warning). Real programs have a few thousand call sites.
  std::size_t symbols = std::size_t{1} << 18;
};

// Reads the mpatrol tracing file `input` into `sink`, then calls sink.finish() (also when the
// input is corrupt: after everything before the damage, then the InputError is rethrown).
// Inconsistent events (the free of an index that is not alive) are warned about, naming the
// record's byte offset, and left out.
void read_mpatrol(InputStream& input, TraceSink& sink, Diagnostics& diagnostics,
                  const ModelReaderLimits& limits);

// The format table's reader: read_mpatrol with the default limits.
void read_mpatrol_trace(InputStream& input, TraceSink& sink, Diagnostics& diagnostics);

}  // namespace rtrace::mpatrol
