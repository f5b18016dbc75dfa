#include "recorder/toggle.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "recorder/module_catalog.h"

namespace rtrace::recorder {
namespace {

std::string upper(std::string_view text) {
  std::string result(text);
  for (char& c : result) {
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return result;
}

std::string proc(pid_t pid, std::string_view entry) {
  return "/proc/" + std::to_string(pid) + "/" + std::string(entry);
}

std::vector<pid_t> direct_children(pid_t pid) {
  std::vector<pid_t> found;
  std::error_code error;
  for (const auto& task : std::filesystem::directory_iterator(proc(pid, "task"), error)) {
    std::ifstream children(task.path() / "children");
    pid_t child = 0;
    while (children >> child) {
      if (std::find(found.begin(), found.end(), child) == found.end()) {
        found.push_back(child);
      }
    }
  }
  return found;
}

}  // namespace

std::optional<int> parse_signal(const std::string& text) {
  int number = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error == std::errc() && end == text.data() + text.size()) {
    if (number > 0 && number <= SIGRTMAX) {
      return number;
    }
    return std::nullopt;
  }
  std::string name = upper(text);
  if (name.starts_with("SIG")) {
    name.erase(0, 3);
  }
  for (int signal = 1; signal < SIGRTMIN; ++signal) {
    const char* abbreviation = ::sigabbrev_np(signal);
    if (abbreviation != nullptr && name == abbreviation) {
      return signal;
    }
  }
  return std::nullopt;
}

std::optional<std::string> unusable_toggle_signal(int signal) {
  if (signal == SIGKILL || signal == SIGSTOP) {
    return std::string("SIG") + ::sigabbrev_np(signal) +
           " cannot toggle tracing: a process cannot catch it";
  }
  return std::nullopt;
}

bool is_traced(pid_t pid) {
  std::ifstream maps(proc(pid, "maps"));
  std::string line;
  while (std::getline(maps, line)) {
    if (line.ends_with(std::string("/") + std::string(kMainModule))) {
      return true;
    }
  }
  return false;
}

std::vector<pid_t> descendants(pid_t pid) {
  std::vector<pid_t> found;
  std::vector<pid_t> parents{pid};
  while (!parents.empty()) {
    const pid_t parent = parents.back();
    parents.pop_back();
    std::error_code error;
    for (const auto& task : std::filesystem::directory_iterator(proc(parent, "task"), error)) {
      std::ifstream children(task.path() / "children");
      pid_t child = 0;
      while (children >> child) {
        // A pid seen twice would mean a cycle in a racing /proc: never loop on it.
        if (child == pid || std::find(found.begin(), found.end(), child) != found.end()) {
          continue;
        }
        found.push_back(child);
        parents.push_back(child);
      }
    }
  }
  return found;
}

namespace {

// The traced processes `pid` stands for: itself, or, when it is a recorder (or any untraced
// parent), the traced processes among its children.
std::vector<pid_t> traced_processes(pid_t pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) {
    throw std::runtime_error("process " + std::to_string(pid) + ": no such process");
  }
  if (is_traced(pid)) {
    return {pid};
  }
  std::vector<pid_t> children;
  for (const pid_t child : direct_children(pid)) {
    if (is_traced(child)) {
      children.push_back(child);
    }
  }
  if (children.empty()) {
    throw std::runtime_error(
        "process " + std::to_string(pid) +
        " is not traced (start it with rtrace record, or attach to it with rtrace record -p)");
  }
  return children;
}

}  // namespace

namespace {

// Whether `pid` has a handler for `signal` (SigCgt of /proc/<pid>/status, a hexadecimal mask).
bool catches(pid_t pid, int signal) {
  std::ifstream status(proc(pid, "status"));
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("SigCgt:")) {
      const std::uint64_t mask = std::stoull(line.substr(7), nullptr, 16);
      return ((mask >> (signal - 1)) & 1U) != 0;
    }
  }
  return false;
}

// What the tracer's control thread says: tracing on, off, or nothing (no control thread).
std::optional<bool> tracing_state(pid_t pid) {
  std::error_code error;
  for (const auto& task : std::filesystem::directory_iterator(proc(pid, "task"), error)) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    std::getline(comm, name);
    if (name == "rtrace:on" || name == "rtrace:off") {
      return name == "rtrace:on";
    }
  }
  return std::nullopt;
}

std::string process_name(pid_t pid) {
  return "process " + std::to_string(pid);
}

// Where the tracer puts its trace connection: the lowest free descriptor from 1000 up
// (trace_output.cpp), which a program rarely reaches.
constexpr int kTracerHighFd = 1000;

// The descriptor the tracer's trace connection would get in `pid` now.
int next_tracer_descriptor(pid_t pid) {
  int fd = kTracerHighFd;
  std::error_code error;
  while (std::filesystem::exists(proc(pid, "fd/" + std::to_string(fd)), error)) {
    ++fd;
  }
  return fd;
}

// Whether descriptor `fd` of `pid` is a trace connection: a socket to the recorder, or a trace
// file the tracer writes itself.
bool is_trace_connection(pid_t pid, int fd) {
  std::error_code error;
  const std::string target =
      std::filesystem::read_symlink(proc(pid, "fd/" + std::to_string(fd)), error).string();
  return !error && (target.starts_with("socket:") || target.ends_with(".rtrace"));
}

// Whether tracing is on now, after a toggle that expected `before` (nothing: the process had no
// control thread, which starts with tracing; the toggle handler then connects at once, at the
// descriptor `connection_fd`, and the control thread follows at the program's next call).
std::optional<bool> switched_state(pid_t pid, std::optional<bool> before, int connection_fd) {
  const std::optional<bool> now = tracing_state(pid);
  if (before) {
    return now && *now != *before ? now : std::nullopt;
  }
  if ((now && *now) || is_trace_connection(pid, connection_fd)) {
    return true;
  }
  return std::nullopt;
}

Toggled toggle_one(pid_t pid, int signal, int patience_ms) {
  const std::optional<bool> before = tracing_state(pid);
  const int connection_fd = before ? -1 : next_tracer_descriptor(pid);
  if (!catches(pid, signal)) {
    throw std::runtime_error(process_name(pid) + " does not catch SIG" + ::sigabbrev_np(signal) +
                             " (it was started with another -S signal, or the program reset "
                             "the handler): not signalled, it would have been killed or stopped");
  }
  if (::kill(pid, signal) != 0) {
    throw std::runtime_error(process_name(pid) + ": " + ::strerror(errno));
  }
  // Patience on the clock, not in sleeps: on a loaded machine each sleep overruns.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(patience_ms);
  for (;;) {
    if (const std::optional<bool> now = switched_state(pid, before, connection_fd)) {
      return {pid, *now};
    }
    if (::kill(pid, 0) != 0) {
      throw std::runtime_error(process_name(pid) + " ended before its tracer answered");
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      break;
    }
    ::usleep(10 * 1000);
  }
  throw std::runtime_error(
      process_name(pid) + ": tracing did not switch within " + std::to_string(patience_ms / 1000) +
      " s of SIG" + ::sigabbrev_np(signal) +
      (before ? " (the program handles that signal itself)"
              : " (the program handles that signal itself, or tracing was switched on and the "
                "program has made no call since: it switches at the next one)"));
}

}  // namespace

std::vector<Toggled> toggle_tracing(pid_t pid, int signal, bool follow_forks, int patience_ms) {
  std::vector<Toggled> toggled;
  for (const pid_t target : traced_processes(pid)) {
    // Children first: a child that ends when its parent stops tracing is toggled all the same.
    if (follow_forks) {
      for (const pid_t child : descendants(target)) {
        if (is_traced(child)) {
          toggled.push_back(toggle_one(child, signal, patience_ms));
        }
      }
    }
    toggled.push_back(toggle_one(target, signal, patience_ms));
  }
  return toggled;
}

}  // namespace rtrace::recorder
