// librtrace-main.so's process hooks (process_hooks.cpp): exec, _exit, dlopen/dlclose and the
// descriptor functions that could close the trace connection.
#pragma once

namespace rtrace::tracer {

// Finds the real functions the hooks call, once; the session does it when it starts.
void resolve_process_functions();

}  // namespace rtrace::tracer
