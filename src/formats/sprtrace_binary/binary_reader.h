// Reader of the sp-rtrace binary protocol, versions 1.0 to 2.0, either byte order, 4- or 8-byte
// pointers.
#pragma once

#include <vector>

#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "model/trace_sink.h"

namespace rtrace {

// Pushes every record into `sink` and calls sink.finish(). A truncated final packet is a warning;
// corrupt data throws InputError naming the byte offset, after everything before it was pushed.
void read_sprtrace_binary(InputStream& input, TraceSink& sink, Diagnostics& diagnostics);

// The memory maps that come after the first call, in order: a first pass over a binary trace
// that decodes nothing else (for LateMapsFirst, pipeline/late_maps_first.h). At most
// kMaxLateMaps are kept; damage ends the pass quietly.
inline constexpr std::size_t kMaxLateMaps = 65536;
std::vector<Mapping> read_late_maps(InputStream& input);

}  // namespace rtrace
