// The resolve stage of the pipeline: names every backtrace address before the first call that
// uses it.
//
// It follows the trace's memory maps (the map in effect at a call decides which file an
// address belongs to), sends symbol(address, info) for each address the first time it is seen
// (and again when a later map changes its answer), then forwards the call unchanged. The
// handshake gets the `resolve` filter flag.
#pragma once

#include <memory>

#include "pipeline/trace_sink.h"
#include "symbols/resolve_options.h"

namespace rtrace::symbols {

std::unique_ptr<TraceSink> make_resolve_stage(TraceSink& next, const ResolveOptions& options);

}  // namespace rtrace::symbols
