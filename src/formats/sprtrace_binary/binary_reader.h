// Reader of the sp-rtrace binary protocol, versions 1.0 to 2.0, either byte order, 4- or 8-byte
// pointers.
#pragma once

#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "pipeline/trace_sink.h"

namespace rtrace {

// Pushes every record into `sink` and calls sink.finish(). A truncated final packet is a warning;
// corrupt data throws InputError naming the byte offset, after everything before it was pushed.
void read_sprtrace_binary(InputStream& input, TraceSink& sink, Diagnostics& diagnostics);

}  // namespace rtrace
