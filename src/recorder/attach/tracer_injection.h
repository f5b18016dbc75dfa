// Loading the tracer into a running process and unloading its hooks again (`rtrace record -p`,
// and -t on such a process): the process's own dlopen, found in its C library's dynamic
// symbols, loads librtrace-main.so; its rtrace_attach gets the settings a launched process reads
// from its environment (src/tracer/session/late_attach.h); rtrace_detach ends the trace.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "recorder/attach/remote_thread.h"

namespace rtrace::recorder::attach {

struct AttachSettings {
  std::string options;               // the RTRACE_OPTIONS text (tracer_settings.h)
  std::string socket_path;           // the recorder's socket
  std::string main_library;          // librtrace-main.so's path
  std::vector<std::string> modules;  // the other modules' paths, in -e order
};

// How the tracer is present in a process.
enum class TracerPresence {
  None,       // not loaded
  Preloaded,  // started under rtrace record (LD_PRELOAD): toggled by signal, not attached
  Loaded,     // loaded by an attach (tracing now or detached)
};
TracerPresence tracer_presence(pid_t pid);

// Checks that `pid` can be attached to (exists, dynamically linked, not traced by another
// process nor started under rtrace), loads the tracer and starts its trace, which connects to
// `settings.socket_path` before this returns: serve that socket meanwhile. Throws AttachError.
void inject_tracer(pid_t pid, const AttachSettings& settings);

// Ends the trace of an attached process and puts its calls back as they were; the trace's end is
// written by the process's tracer thread after this returns. Throws AttachError (not attached).
void inject_detach(pid_t pid);

}  // namespace rtrace::recorder::attach
