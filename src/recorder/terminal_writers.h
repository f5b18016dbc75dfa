// The traced processes that write to the terminal rtrace's progress line is drawn on.
//
// The progress line is redrawn in place, without a newline: text that another process writes to
// the same terminal runs into it ("150.4 MiB/sdone"). A traced process inherits rtrace's standard
// output and error, so its output is usually on that terminal; it may also have been started with
// its output elsewhere (`sh -c 'exec program >log 2>&1'`). The recorder keeps the pids of the
// processes whose traces it is receiving, and the line may be drawn only while none of them has
// its standard output or error on that terminal. Asked again at each redraw (at most ten times a
// second), so a process that redirects its output, ends or execs is seen as it is now.
#pragma once

#include <cstdint>
#include <mutex>
#include <set>

namespace rtrace::recorder {

// Whether process `pid`'s standard output or error is the terminal that `terminal_fd` is (the
// same character device, whichever file name opened it). False when `terminal_fd` is not a
// terminal or the process has no such descriptors any more (it ended).
bool writes_to_terminal(std::uint32_t pid, int terminal_fd);

class TerminalWriters {
 public:
  explicit TerminalWriters(int terminal_fd) : terminal_fd_(terminal_fd) {}

  // Counts `pid` among the processes being received for as long as it lives.
  class Receiving {
   public:
    Receiving(TerminalWriters& writers, std::uint32_t pid);
    Receiving(const Receiving&) = delete;
    Receiving& operator=(const Receiving&) = delete;
    ~Receiving();

   private:
    TerminalWriters& writers_;
    std::uint32_t pid_;
  };

  // True when one of the processes being received writes to the terminal.
  bool any() const;

 private:
  int terminal_fd_;
  mutable std::mutex mutex_;
  std::multiset<std::uint32_t> receiving_;  // a pid may have several connections (exec)
};

}  // namespace rtrace::recorder
