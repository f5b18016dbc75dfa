// Runs a shell command and measures the largest resident memory any of its processes reached,
// for tests of memory that must stay bounded whatever the size of the input (a limit on address
// space cannot tell a mapped file's pages that are resident from those that are not).
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <string>

namespace rtrace::test {

struct MeasuredRun {
  int status = -1;                 // exit status, -1 when killed by a signal
  std::uint64_t peak_rss_kib = 0;  // of the shell and every process it waited for
};

// Runs `command` with /bin/sh -c (its output goes where the test's does: redirect it).
inline MeasuredRun run_measuring_memory(const std::string& command) {
  const pid_t child = ::fork();
  if (child == 0) {
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  MeasuredRun run;
  if (child < 0) {
    return run;
  }
  int status = 0;
  struct rusage usage {};
  // wait4's usage of a child includes the largest of its own waited-for children.
  if (::wait4(child, &status, 0, &usage) != child) {
    return run;
  }
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.peak_rss_kib = static_cast<std::uint64_t>(usage.ru_maxrss);
  return run;
}

}  // namespace rtrace::test
