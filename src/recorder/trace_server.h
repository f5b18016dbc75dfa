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

// What the server watches besides the socket, for a process it did not start (attached).
class ServedProcess {
 public:
  virtual ~ServedProcess() = default;
  // Readable when the process has ended.
  virtual int exit_fd() const = 0;
  // Its exit status once it ended (what can be known of it).
  virtual int exit_status() = 0;
  // Readable when the user asks to stop recording (-1: never); stop() is then called once, and
  // the server ends when the traces open then have closed.
  virtual int stop_fd() const = 0;
  virtual void stop() = 0;
};

// Serves until `process` ended or was stopped, or the traces that came have all closed.
ServeResult serve(const PrivateSocket& socket, ServedProcess& process, TraceHandler& handler);

}  // namespace rtrace::recorder
