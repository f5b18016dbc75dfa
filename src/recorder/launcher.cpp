#include "recorder/launcher.h"

#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <system_error>

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX declares it nowhere

namespace rtrace::recorder {
namespace {

std::vector<std::string> changed_environment(const std::vector<EnvironmentChange>& changes) {
  std::vector<std::string> result;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::string_view name = text.substr(0, text.find('='));
    bool replaced = false;
    for (const EnvironmentChange& change : changes) {
      replaced = replaced || change.name == name;
    }
    if (!replaced) {
      result.emplace_back(text);
    }
  }
  for (const EnvironmentChange& change : changes) {
    if (!change.remove) {
      result.push_back(change.name + "=" + change.value);
    }
  }
  return result;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> result;
  result.reserve(strings.size() + 1);
  for (std::string& text : strings) {
    result.push_back(text.data());
  }
  result.push_back(nullptr);
  return result;
}

// posix_spawn attributes: every signal at its default disposition and none blocked, whatever the
// recorder ignores or handles for itself.
class SpawnAttributes {
 public:
  SpawnAttributes() {
    ::posix_spawnattr_init(&attributes_);
    sigset_t all;
    sigfillset(&all);
    sigset_t none;
    sigemptyset(&none);
    ::posix_spawnattr_setsigdefault(&attributes_, &all);
    ::posix_spawnattr_setsigmask(&attributes_, &none);
    ::posix_spawnattr_setflags(&attributes_, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  }
  SpawnAttributes(const SpawnAttributes&) = delete;
  SpawnAttributes& operator=(const SpawnAttributes&) = delete;
  ~SpawnAttributes() { ::posix_spawnattr_destroy(&attributes_); }
  const posix_spawnattr_t* get() const { return &attributes_; }

 private:
  posix_spawnattr_t attributes_{};
};

}  // namespace

TracedProcess::TracedProcess(const std::vector<std::string>& command,
                             const std::vector<EnvironmentChange>& changes) {
  if (command.empty()) {
    throw std::system_error(EINVAL, std::generic_category(), "no command");
  }
  std::vector<std::string> arguments = command;
  std::vector<std::string> environment = changed_environment(changes);
  const std::vector<char*> argv = pointers(arguments);
  const std::vector<char*> envp = pointers(environment);

  const SpawnAttributes attributes;
  const int error =
      ::posix_spawnp(&pid_, argv[0], nullptr, attributes.get(), argv.data(), envp.data());
  if (error != 0) {
    throw std::system_error(error, std::generic_category(), command[0]);
  }
  // A pidfd refers to the child even after it exits, until we reap it: no race with its exit.
  pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
  if (pidfd_ < 0) {
    const int open_error = errno;
    wait();
    throw std::system_error(open_error, std::generic_category(), "pidfd_open");
  }
}

TracedProcess::~TracedProcess() {
  if (pid_ > 0 && !reaped_) {
    wait();
  }
  if (pidfd_ >= 0) {
    ::close(pidfd_);
  }
}

int TracedProcess::wait() {
  while (!reaped_) {
    int status = 0;
    if (::waitpid(pid_, &status, 0) == pid_) {
      reaped_ = true;
      status_ = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
    } else if (errno != EINTR) {
      reaped_ = true;
      status_ = 1;
    }
  }
  return status_;
}

}  // namespace rtrace::recorder
