// apitrace traces in rtrace's format table: detected by the Snappy container's 'a' 't', read
// into the common model (apitrace_reader.cpp), never written.
#pragma once

#include "formats/format_registry.h"

namespace rtrace {

TraceFormatInfo apitrace_format();

// Reads an apitrace trace into `sink`: each call becomes a call record (index = call number,
// thread = apitrace's thread number + 1, the function, its arguments and return value as `apitrace
// dump` prints them, backtrace frames as symbols), and the object-lifetime stage
// (object_lifetime_stage.h) turns the calls that create and delete objects into allocations and
// frees.
void read_apitrace(InputStream& input, TraceSink& sink, Diagnostics& diagnostics);

}  // namespace rtrace
