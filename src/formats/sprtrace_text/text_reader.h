// Reader of the sp-rtrace text protocol (what sp-rtrace-postproc and sp-rtrace-resolve print).
#pragma once

#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "model/trace_sink.h"

namespace rtrace {

// Pushes every record into `sink` and calls sink.finish(). Damage is reported with line numbers.
void read_sprtrace_text(InputStream& input, TraceSink& sink, Diagnostics& diagnostics);

}  // namespace rtrace
