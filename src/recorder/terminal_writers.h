// The traced processes that write to the terminal rtrace's progress line is drawn on.
//
// The progress line is redrawn in place, without a newline: text that another process writes to
// the same terminal runs into it ("150.4 MiB/sdone"). A traced process inherits rtrace's standard
// output and error, so its output is usually on that terminal; it may also have been started with
// its output elsewhere (`sh -c 'exec program >log 2>&1'`). The recorder keeps the pids of the
// processes whose traces it is receiving, and the line may be drawn only while none of them has
// had its standard output or error on that terminal. A process seen writing there counts until
// its trace ends (also in the moment between its exit and the end of its connection, when it
// has no descriptors left but its last lines are on the screen); the others are asked again at
// each redraw (at most ten times a second). A process that execs starts a new trace, seen anew.
#pragma once

#include <cstdint>
#include <list>
#include <mutex>

namespace rtrace::recorder {

// Whether process `pid`'s standard output or error is the terminal that `terminal_fd` is (the
// same character device, whichever file name opened it). False when `terminal_fd` is not a
// terminal or the process has no such descriptors any more (it ended).
bool writes_to_terminal(std::uint32_t pid, int terminal_fd);

struct ReceivedProcess {
  std::uint32_t pid;
  bool writes;  // seen writing to the terminal: stays set
};

class TerminalWriters {
 public:
  explicit TerminalWriters(int terminal_fd) : terminal_fd_(terminal_fd) {}

  // Counts process `pid` among those being received while this object lives; checks it at once.
  class Receiving {
   public:
    Receiving(TerminalWriters& writers, std::uint32_t pid);
    Receiving(const Receiving&) = delete;
    Receiving& operator=(const Receiving&) = delete;
    ~Receiving();
    // Whether the process was seen writing to the terminal.
    bool writes() const;

   private:
    TerminalWriters& writers_;
    std::list<ReceivedProcess>::iterator process_;
  };

  // True when one of the processes being received writes, or wrote, to the terminal.
  bool any();

 private:
  // Looks at the process again unless it was already seen writing; says whether it was.
  bool check(ReceivedProcess& process) const;

  int terminal_fd_;
  mutable std::mutex mutex_;
  std::list<ReceivedProcess> receiving_;
};

}  // namespace rtrace::recorder
