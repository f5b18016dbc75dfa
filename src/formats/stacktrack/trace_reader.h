// StackTrack raw event files as rtrace traces: every checkpoint hit becomes a call.
//
// A HIT becomes a call named after its scope (the SLOC's text), of kind Other (a hit says a
// checkpoint was passed, not that a scope was entered or left: the layout has no such field),
// of the single resource type `checkpoint`, with its pid, thread, time in nanoseconds since its
// process's start (TIMEINFO, TIMETYPE), the entry's sequence number as its index, and one frame
// at address 0 whose symbol is the scope: function = scope name, file and line from the SLOC
// and FLOC. A HIT followed by INFO text gets it as the argument `info`, and is delivered when its
// text is complete. Each process (PROCINFO, TIMEINFO or first hit) becomes a ProcessInfo whose
// start is the TIMEINFO's calendar time and whose backtrace depth is 1 (the scope frame). See
// rtrace-stacktrack(1).
#pragma once

#include "formats/format_registry.h"

namespace rtrace::stacktrack {

// Reads a raw event file in the default layout (the format table's reader).
void read_trace(InputStream& input, TraceSink& sink, Diagnostics& diagnostics);

// The format table's entry: detected by a PROLOGUE first, in either byte order.
TraceFormatInfo trace_format();

}  // namespace rtrace::stacktrack
