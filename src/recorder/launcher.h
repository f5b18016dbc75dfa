// Starts the program to trace with the tracer's environment, and waits for it.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace rtrace::recorder {

// Environment variables to set (replacing any of the same name) or, with an empty value and
// `remove` set, to drop.
struct EnvironmentChange {
  std::string name;
  std::string value;
  bool remove = false;
};

class TracedProcess {
 public:
  // Starts `command` (searched in PATH like a shell does) with this process's environment changed
  // by `changes`. Signals this process ignores or handles are back to their defaults in the
  // child. Throws std::system_error when the program cannot be started.
  TracedProcess(const std::vector<std::string>& command,
                const std::vector<EnvironmentChange>& changes);
  TracedProcess(const TracedProcess&) = delete;
  TracedProcess& operator=(const TracedProcess&) = delete;
  // Waits for the process if nobody did.
  ~TracedProcess();

  pid_t pid() const { return pid_; }
  // Becomes readable when the process has exited (a pidfd).
  int exit_fd() const { return pidfd_; }
  // Reaps the process; returns its exit status, or 128 + N when signal N killed it.
  int wait();

 private:
  pid_t pid_ = -1;
  int pidfd_ = -1;
  bool reaped_ = false;
  int status_ = 0;
};

}  // namespace rtrace::recorder
