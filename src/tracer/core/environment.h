// The process environment, read and edited without the program's getenv/setenv. Programs such as
// bash bring their own getenv and setenv that keep a private table: calling them from the tracer
// (before the program's main) hides the tracer's own variables and changes what the program
// exports. So the tracer reads `environ` itself and edits it only in place.
#pragma once

#include <sys/types.h>

#include "protocol/tracer_environment.h"

namespace rtrace::tracer {

// The value of `name` in `environ`, null when absent. Never allocates.
const char* environment_value(const char* name);

// The variable that names the first traced process of a recording, and its width
// (protocol/tracer_environment.h).
using tracer_environment::kRootPidVariable;
using tracer_environment::kRootPidWidth;

// True when `pid` is the first traced process: it claims the unclaimed variable, or finds its
// own pid there. Without the variable (the tracer preloaded by hand) the variable is added to
// `environ` (a new array in static or mapped memory, never the program's allocator).
bool claim_root_process(pid_t pid);

}  // namespace rtrace::tracer
