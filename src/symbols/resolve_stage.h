// The resolve stage of the pipeline: attaches a symbol to every address frame.
//
// It follows the trace's memory maps (the map in effect at a call decides which file an
// address belongs to), looks each distinct address up once, interns what it learns as Symbols
// (announced downstream before the first call that uses them) and forwards every call with its
// frames' symbol ids set. Symbols that arrive with the input are kept only with keep_resolved,
// or for frames that have no address. The header gets the `resolve` stage flag.
#pragma once

#include <memory>

#include "model/trace_sink.h"
#include "symbols/resolve_options.h"

namespace rtrace::symbols {

std::unique_ptr<TraceSink> make_resolve_stage(TraceSink& next, const ResolveOptions& options);

}  // namespace rtrace::symbols
