// Serves the connections of traced processes until the traced program has exited and every
// connection has closed. Each connection gets a thread of its own (handlers read blocking
// sockets), so a slow post-processing of one never holds up the others.
#pragma once

#include "recorder/launcher.h"
#include "recorder/private_socket.h"
#include "recorder/trace_handler.h"

namespace rtrace::recorder {

struct ServeResult {
  int exit_status = 0;       // the traced program's (see TracedProcess::wait)
  bool all_recorded = true;  // false when some trace could not be written in full
  unsigned connections = 0;
};

ServeResult serve(const PrivateSocket& socket, TracedProcess& target, TraceHandler& handler);

}  // namespace rtrace::recorder
