// Reader of the compact rtrace recording format (docs/format.md), versions 1 to 4.
#pragma once

#include <vector>

#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "model/trace_sink.h"

namespace rtrace {

// Pushes every record into `sink` and calls sink.finish(). A truncated final record and a trace
// without its end record are warnings; corrupt data throws InputError naming the byte offset of
// the damaged record, after everything before it was pushed.
void read_compact(InputStream& input, TraceSink& sink, Diagnostics& diagnostics);

// The memory maps that come after the first call, in order (at most kMaxLateMaps, as
// read_late_maps of the binary reader): a first pass for LateMapsFirst, so that a compact trace
// prints as text exactly as the binary trace of the same recording does. Damage ends the pass
// quietly.
std::vector<Mapping> read_compact_late_maps(InputStream& input);

// Whether any MAPPING record follows a call: when not, read_compact_late_maps would find none
// (damage only ends its pass earlier) and need not decode the whole trace to say so. This walks
// the records' lengths only, stopping at the first such mapping.
bool compact_has_late_maps(InputStream& input);

}  // namespace rtrace
