#include "recorder/terminal_writers.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <string>

namespace rtrace::recorder {

bool writes_to_terminal(std::uint32_t pid, int terminal_fd) {
  struct stat terminal {};
  if (::isatty(terminal_fd) != 1 || ::fstat(terminal_fd, &terminal) != 0 ||
      !S_ISCHR(terminal.st_mode)) {
    return false;
  }
  // stat() follows /proc's link to the file the descriptor has open: for a terminal, its device.
  for (const int fd : std::array{STDOUT_FILENO, STDERR_FILENO}) {
    const std::string path = fmt::format("/proc/{}/fd/{}", pid, fd);
    struct stat output {};
    if (::stat(path.c_str(), &output) == 0 && S_ISCHR(output.st_mode) &&
        output.st_rdev == terminal.st_rdev) {
      return true;
    }
  }
  return false;
}

TerminalWriters::Receiving::Receiving(TerminalWriters& writers, std::uint32_t pid)
    : writers_(writers) {
  const std::lock_guard lock(writers_.mutex_);
  process_ = writers_.receiving_.insert(writers_.receiving_.end(), ReceivedProcess{pid, false});
  writers_.check(*process_);
}

TerminalWriters::Receiving::~Receiving() {
  const std::lock_guard lock(writers_.mutex_);
  writers_.receiving_.erase(process_);
}

bool TerminalWriters::Receiving::writes() const {
  const std::lock_guard lock(writers_.mutex_);
  return process_->writes;
}

bool TerminalWriters::check(ReceivedProcess& process) const {
  process.writes = process.writes || writes_to_terminal(process.pid, terminal_fd_);
  return process.writes;
}

bool TerminalWriters::any() {
  const std::lock_guard lock(mutex_);
  bool any = false;
  for (ReceivedProcess& process : receiving_) {
    any = check(process) || any;
  }
  return any;
}

}  // namespace rtrace::recorder
