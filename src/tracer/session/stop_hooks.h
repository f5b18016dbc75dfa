// What the modules do when a trace ends: the functions they registered with
// rtrace_register_stop_hook (tracer_api.h), and the FILE packets those add to the trace
// (rtrace_attach_file). The session runs them at the end of stop_session, with the drain lock
// held, so one trace's hooks never overlap another's.
#pragma once

#include "tracer/api/tracer_api.h"

namespace rtrace::tracer {

bool add_stop_hook(RtraceStopHook hook);
// Runs every hook with `directory` (nothing when it is null). Async-signal-safe itself.
void run_stop_hooks(const char* directory);
// Appends a FILE packet to the trace output; ignored outside run_stop_hooks.
void attach_file(const char* name, const char* file);

}  // namespace rtrace::tracer
