// The process environment, read and edited without the program's getenv/setenv. Programs such as
// bash bring their own getenv and setenv that keep a private table: calling them from the tracer
// (before the program's main) hides the tracer's own variables and changes what the program
// exports. So the tracer reads `environ` itself and edits it only in place.
#pragma once

#include <sys/types.h>

namespace rtrace::tracer {

// The value of `name` in `environ`, null when absent. Never allocates.
const char* environment_value(const char* name);

// The variable that names the first traced process of a recording. The recorder sets it to a
// run of zeros (unclaimed, wide enough for any pid) so that the first traced process can write
// its pid over them in place: the program's own copies of the environment (bash's exported
// variables) then carry it to every child.
inline constexpr char kRootPidVariable[] = "RTRACE_ROOT_PID";
inline constexpr int kRootPidWidth = 20;

// True when `pid` is the first traced process: it claims the unclaimed variable, or finds its
// own pid there. Without the variable (the tracer preloaded by hand) the variable is added to
// `environ` (a new array in static or mapped memory, never the program's allocator).
bool claim_root_process(pid_t pid);

}  // namespace rtrace::tracer
