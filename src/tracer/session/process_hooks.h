// librtrace-main.so's process hooks (process_hooks.cpp): exec, _exit, quick_exit, dlopen/dlclose
// and the descriptor functions that could close the trace connection.
#pragma once

namespace rtrace::tracer {

// Finds the real functions the hooks call, once; the session does it when it starts.
void resolve_process_functions();

// Registers the trace's flush as an at_quick_exit handler. Called from librtrace-main.so's
// constructor, before the program can register its own: handlers run in reverse order, so ours
// runs after them and their calls are in the trace.
void register_quick_exit_flush();

}  // namespace rtrace::tracer
