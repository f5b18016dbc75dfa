// Tracing a process that was started without the tracer (`rtrace record -p PID`). The recorder
// stops one thread of the process with ptrace and has it call dlopen on librtrace-main.so, then
// the exported rtrace_attach (below) with the settings a launched process finds in its
// environment, which a running process's environment cannot receive:
//   rtrace_attach(options, socket_path, modules): the RTRACE_OPTIONS text, the recorder's socket,
//   the module libraries to load (paths separated by ':'). It sets the session up from them
//   (never touching the process's environment or signal handlers), loads the modules, starts
//   the trace (header and the maps of everything loaded), starts the control thread, and then
//   points the program's GOT entries at the tracer (got_patcher.h). Returns 0, or a negative
//   code with the reason in rtrace_attach_message.
//   rtrace_detach(): puts the GOT entries back and asks the control thread to end the trace and
//   then itself. The libraries stay loaded (a thread may still be inside one of their
//   functions); a later rtrace_attach starts a new trace.
// Both run on the recorder's hijacked thread, so they take no lock the program may hold at that
// moment other than the dynamic linker's (dlopen) and the allocator's.
#pragma once

namespace rtrace::tracer {

// True when librtrace-main.so was loaded into a running process (neither LD_PRELOAD names it nor
// does the environment carry the recorder's options): its constructor then leaves the process
// alone until rtrace_attach.
bool loaded_into_running_process();

// The options and socket rtrace_attach received; null when the process was not attached.
const char* attach_options_text();
const char* attach_socket_path();

// For the control thread: true once, after rtrace_detach, when the trace has ended and the
// thread should end too (an attached process gets its threads back as they were).
bool control_thread_should_leave();

}  // namespace rtrace::tracer

extern "C" {
__attribute__((visibility("default"))) int rtrace_attach(const char* options,
                                                         const char* socket_path,
                                                         const char* modules);
__attribute__((visibility("default"))) int rtrace_detach();
// Why the last rtrace_attach or rtrace_detach failed (the recorder reads it from the process).
__attribute__((visibility("default"))) extern char rtrace_attach_message[256];
}
