// Which processes write to a terminal: real child processes with their standard output and error
// on a pseudo-terminal, on /dev/null, or on another pseudo-terminal.
#include "recorder/terminal_writers.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <string>

namespace rtrace::recorder {
namespace {

// A pseudo-terminal; `terminal()` is its terminal side, as a program's output would be.
class PseudoTerminal {
 public:
  PseudoTerminal() {
    controller_ = ::posix_openpt(O_RDWR | O_NOCTTY);
    EXPECT_GE(controller_, 0);
    EXPECT_EQ(::grantpt(controller_), 0);
    EXPECT_EQ(::unlockpt(controller_), 0);
    name_ = ::ptsname(controller_);
    terminal_ = ::open(name_.c_str(), O_RDWR | O_NOCTTY);
    EXPECT_GE(terminal_, 0);
  }
  PseudoTerminal(const PseudoTerminal&) = delete;
  PseudoTerminal& operator=(const PseudoTerminal&) = delete;
  ~PseudoTerminal() {
    ::close(terminal_);
    ::close(controller_);
  }
  int terminal() const { return terminal_; }
  const std::string& name() const { return name_; }

 private:
  int controller_ = -1;
  int terminal_ = -1;
  std::string name_;
};

// A child process with `out` and `err` as its standard output and error (once constructed),
// waiting until the object goes away.
class Child {
 public:
  Child(int out, int err) {
    std::array<int, 2> ready{-1, -1};
    EXPECT_EQ(::pipe(ready.data()), 0);
    EXPECT_EQ(::pipe(release_.data()), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(out, STDOUT_FILENO);
      ::dup2(err, STDERR_FILENO);
      ::close(release_[1]);
      ::close(ready[1]);  // the parent's read returns: the descriptors are in place
      char byte = 0;
      const ssize_t n = ::read(release_[0], &byte, 1);  // returns when the parent closes its end
      ::_exit(n < 0 ? 1 : 0);
    }
    ::close(release_[0]);
    ::close(ready[1]);
    char byte = 0;
    EXPECT_EQ(::read(ready[0], &byte, 1), 0);
    ::close(ready[0]);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() { end(); }
  void end() {
    if (pid_ > 0) {
      ::close(release_[1]);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }
  std::uint32_t pid() const { return static_cast<std::uint32_t>(pid_); }

 private:
  std::array<int, 2> release_{-1, -1};
  pid_t pid_ = -1;
};

class DevNull {
 public:
  DevNull() : fd_(::open("/dev/null", O_WRONLY)) {}
  DevNull(const DevNull&) = delete;
  DevNull& operator=(const DevNull&) = delete;
  ~DevNull() { ::close(fd_); }
  int fd() const { return fd_; }

 private:
  int fd_;
};

TEST(TerminalWriters, OutputOrErrorOnTheSameTerminalWrites) {
  const PseudoTerminal pty;
  const DevNull null;
  const Child both(pty.terminal(), pty.terminal());
  const Child output_only(pty.terminal(), null.fd());
  const Child error_only(null.fd(), pty.terminal());
  EXPECT_TRUE(writes_to_terminal(both.pid(), pty.terminal()));
  EXPECT_TRUE(writes_to_terminal(output_only.pid(), pty.terminal()));
  EXPECT_TRUE(writes_to_terminal(error_only.pid(), pty.terminal()));
}

TEST(TerminalWriters, TheSameTerminalOpenedByAnotherDescriptorIsTheSame) {
  const PseudoTerminal pty;
  const int again = ::open(pty.name().c_str(), O_WRONLY | O_NOCTTY);
  ASSERT_GE(again, 0);
  const Child child(again, again);
  EXPECT_TRUE(writes_to_terminal(child.pid(), pty.terminal()));
  ::close(again);
}

TEST(TerminalWriters, OutputElsewhereDoesNotWrite) {
  const PseudoTerminal pty;
  const PseudoTerminal other;
  const DevNull null;
  const Child to_null(null.fd(), null.fd());
  const Child to_other(other.terminal(), other.terminal());
  EXPECT_FALSE(writes_to_terminal(to_null.pid(), pty.terminal()));
  EXPECT_FALSE(writes_to_terminal(to_other.pid(), pty.terminal()));
}

TEST(TerminalWriters, NothingWritesToWhatIsNoTerminal) {
  const DevNull null;
  const Child to_null(null.fd(), null.fd());
  EXPECT_FALSE(writes_to_terminal(to_null.pid(), null.fd()));
}

TEST(TerminalWriters, AnEndedProcessNoLongerWrites) {
  const PseudoTerminal pty;
  Child child(pty.terminal(), pty.terminal());
  const std::uint32_t pid = child.pid();
  child.end();
  EXPECT_FALSE(writes_to_terminal(pid, pty.terminal()));
}

TEST(TerminalWriters, AnyCountsTheProcessesBeingReceived) {
  const PseudoTerminal pty;
  const DevNull null;
  const Child writer(pty.terminal(), pty.terminal());
  const Child silent(null.fd(), null.fd());
  TerminalWriters writers(pty.terminal());
  const TerminalWriters::Receiving receiving_silent(writers, silent.pid());
  EXPECT_FALSE(writers.any());
  {
    const TerminalWriters::Receiving receiving_writer(writers, writer.pid());
    EXPECT_TRUE(writers.any());
  }
  EXPECT_FALSE(writers.any());  // its connection ended
}

// Between a program's exit and the end of its trace it has no descriptors, but its last lines are
// on the screen: seen writing once, it counts until its trace ends.
TEST(TerminalWriters, AProcessSeenWritingCountsUntilItsTraceEnds) {
  const PseudoTerminal pty;
  Child writer(pty.terminal(), pty.terminal());
  TerminalWriters writers(pty.terminal());
  {
    const TerminalWriters::Receiving receiving(writers, writer.pid());
    EXPECT_TRUE(receiving.writes());
    writer.end();
    EXPECT_TRUE(writers.any());
  }
  EXPECT_FALSE(writers.any());
}

}  // namespace
}  // namespace rtrace::recorder
