// `rtrace record -p PID`: recording a process the recorder did not start, from the attach until
// Ctrl-C (or SIGTERM, SIGHUP) on the recorder, `rtrace record -t PID`, or the process's end.
#pragma once

#include <sys/types.h>

#include "recorder/attach/tracer_injection.h"
#include "recorder/private_socket.h"
#include "recorder/trace_handler.h"
#include "recorder/trace_server.h"

namespace rtrace::recorder::attach {

// Attaches to `pid` with `settings` (whose socket is `socket`'s), serves its trace into
// `handler` until it is detached or ends, and detaches it on the signals above. Throws
// AttachError when it cannot be attached (nothing was changed in it then).
ServeResult record_attached(pid_t pid, const AttachSettings& settings, const PrivateSocket& socket,
                            TraceHandler& handler, bool quiet);

// -t on an attached process: detaches it and waits (up to `patience_ms`) until its trace is
// written out. On the pid of a recorder attached with -p: asks that recorder to detach (as
// Ctrl-C would) and waits for it to end. False when `pid` is neither (toggle it instead).
bool detach_if_attached(pid_t pid, bool quiet, int patience_ms = 5000);

}  // namespace rtrace::recorder::attach
