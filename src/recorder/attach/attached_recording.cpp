#include "recorder/attach/attached_recording.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace rtrace::recorder::attach {
namespace {

int g_stop_write_fd = -1;

void request_stop(int) {
  const int saved_errno = errno;
  const char byte = 's';
  [[maybe_unused]] const ssize_t n = ::write(g_stop_write_fd, &byte, 1);
  errno = saved_errno;
}

// The attached process as the trace server sees it: its end (a pidfd), and the user's request
// to stop (Ctrl-C, SIGTERM, SIGHUP on the recorder), which detaches it.
class AttachedProcess : public ServedProcess {
 public:
  AttachedProcess(pid_t pid, bool quiet) : pid_(pid), quiet_(quiet) {
    pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (pidfd_ < 0) {
      throw AttachError("process " + std::to_string(pid) + ": no such process");
    }
    if (::pipe2(stop_pipe_, O_CLOEXEC) != 0) {
      ::close(pidfd_);
      throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    }
    g_stop_write_fd = stop_pipe_[1];
    struct sigaction stop {};
    stop.sa_handler = request_stop;
    stop.sa_flags = SA_RESTART;
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGINT, &stop, &old_int_);
    ::sigaction(SIGTERM, &stop, &old_term_);
    ::sigaction(SIGHUP, &stop, &old_hup_);
    ::sigaction(SIGPIPE, &ignore, &old_pipe_);
  }
  AttachedProcess(const AttachedProcess&) = delete;
  AttachedProcess& operator=(const AttachedProcess&) = delete;
  ~AttachedProcess() override {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
    ::sigaction(SIGHUP, &old_hup_, nullptr);
    ::sigaction(SIGPIPE, &old_pipe_, nullptr);
    g_stop_write_fd = -1;
    ::close(stop_pipe_[0]);
    ::close(stop_pipe_[1]);
    ::close(pidfd_);
  }

  int exit_fd() const override { return pidfd_; }
  // Not the recorder's child: its status is its parent's to collect.
  int exit_status() override { return 0; }
  int stop_fd() const override { return stop_pipe_[0]; }

  void stop() override {
    const std::lock_guard lock(mutex_);
    if (state_ == State::Attached) {
      detach_now();
    } else if (state_ == State::Attaching) {
      state_ = State::DetachWhenAttached;
    }
  }

  // After a successful attach (a stop asked meanwhile detaches at once).
  void attached() {
    const std::lock_guard lock(mutex_);
    if (state_ == State::DetachWhenAttached) {
      detach_now();
      return;
    }
    state_ = State::Attached;
  }

  // After a failed attach: the server stops serving.
  void abandon() {
    const std::lock_guard lock(mutex_);
    state_ = State::Detached;
    request_stop(0);
  }

 private:
  enum class State { Attaching, DetachWhenAttached, Attached, Detached };

  void detach_now() {
    state_ = State::Detached;
    try {
      inject_detach(pid_);
      if (!quiet_) {
        fmt::print(stderr, "rtrace: detached from process {}\n", pid_);
      }
    } catch (const AttachError& error) {
      // It ended meanwhile, or another recorder detached it: its trace ends anyway.
      if (!quiet_) {
        fmt::print(stderr, "rtrace: {}\n", error.what());
      }
    }
  }

  pid_t pid_;
  bool quiet_;
  int pidfd_ = -1;
  int stop_pipe_[2] = {-1, -1};
  std::mutex mutex_;
  State state_ = State::Attaching;
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
  struct sigaction old_hup_ {};
  struct sigaction old_pipe_ {};
};

std::vector<std::string> command_line(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::vector<std::string> arguments;
  std::string argument;
  while (std::getline(file, argument, '\0')) {
    arguments.push_back(argument);
  }
  return arguments;
}

// Whether `pid` is an `rtrace record -p` (this same program, recording an attached process).
bool is_attached_recorder(pid_t pid) {
  std::error_code error;
  const auto theirs = std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/exe", error);
  const auto ours = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error || theirs != ours) {
    return false;
  }
  bool record = false;
  for (const std::string& argument : command_line(pid)) {
    record = record || argument == "record";
    if (record && (argument == "-p" || argument.starts_with("--pid"))) {
      return true;
    }
  }
  return false;
}

// Whether the tracer's control thread of `pid` still runs (it ends once a detach wrote the
// trace out).
bool has_tracer_thread(pid_t pid) {
  std::error_code error;
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", error)) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    std::getline(comm, name);
    if (name.starts_with("rtrace:")) {
      return true;
    }
  }
  return false;
}

template <typename Condition>
bool wait_until(Condition&& done, int patience_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(patience_ms);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

}  // namespace

ServeResult record_attached(pid_t pid, const AttachSettings& settings, const PrivateSocket& socket,
                            TraceHandler& handler, bool quiet) {
  AttachedProcess process(pid, quiet);
  ServeResult served;
  std::exception_ptr server_failure;
  // The tracer connects and writes its header while the attach call runs in the process: the
  // socket is served meanwhile.
  std::thread server([&] {
    try {
      served = serve(socket, process, handler);
    } catch (...) {
      server_failure = std::current_exception();
    }
  });
  try {
    inject_tracer(pid, settings);
  } catch (...) {
    process.abandon();
    server.join();
    throw;
  }
  if (!quiet) {
    fmt::print(stderr, "rtrace: attached to process {}; Ctrl-C or rtrace record -t {} detaches\n",
               pid, pid);
  }
  process.attached();
  server.join();
  if (server_failure) {
    std::rethrow_exception(server_failure);
  }
  return served;
}

bool detach_if_attached(pid_t pid, bool quiet, int patience_ms) {
  if (is_attached_recorder(pid)) {
    ::kill(pid, SIGINT);
    const std::string proc = "/proc/" + std::to_string(pid);
    const auto ended = [&] {
      std::ifstream status(proc + "/status");
      std::string line;
      while (std::getline(status, line)) {
        if (line.starts_with("State:")) {
          return line.find('Z') != std::string::npos;  // a zombie its parent did not reap yet
        }
      }
      return true;
    };
    if (!wait_until(ended, patience_ms)) {
      throw AttachError("the recorder " + std::to_string(pid) + " did not end within " +
                        std::to_string(patience_ms / 1000) + " s");
    }
    return true;
  }
  if (tracer_presence(pid) != TracerPresence::Loaded) {
    return false;
  }
  inject_detach(pid);
  if (!wait_until([&] { return !has_tracer_thread(pid); }, patience_ms)) {
    throw AttachError("process " + std::to_string(pid) + " did not end its trace within " +
                      std::to_string(patience_ms / 1000) + " s");
  }
  if (!quiet) {
    fmt::print(stderr, "rtrace: detached from process {}\n", pid);
  }
  return true;
}

}  // namespace rtrace::recorder::attach
