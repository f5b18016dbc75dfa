// Reads any supported trace: detects the format by content and runs its reader.
#pragma once

#include "formats/trace_format.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "pipeline/trace_sink.h"

namespace rtrace {

// Pushes every record of `input` into `sink`, then calls sink.finish(). Throws InputError when the
// format is unknown or the input is corrupt (after delivering everything before the damage).
// Damaged compressed input is reported after the records before it (InputStream::report_damage).
TraceFormat read_trace(InputStream& input, TraceSink& sink, Diagnostics& diagnostics);

}  // namespace rtrace
