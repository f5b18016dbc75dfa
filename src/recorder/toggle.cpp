#include "recorder/toggle.h"

#include <signal.h>
#include <string.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
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
    throw std::runtime_error("process " + std::to_string(pid) +
                             " is not traced (start it with rtrace record)");
  }
  return children;
}

}  // namespace

std::vector<pid_t> toggle_tracing(pid_t pid, int signal, bool follow_forks) {
  std::vector<pid_t> signalled;
  for (const pid_t target : traced_processes(pid)) {
    if (::kill(target, signal) != 0) {
      throw std::runtime_error("process " + std::to_string(target) + ": " + ::strerror(errno));
    }
    signalled.push_back(target);
    if (follow_forks) {
      for (const pid_t child : descendants(target)) {
        if (is_traced(child) && ::kill(child, signal) == 0) {
          signalled.push_back(child);
        }
      }
    }
  }
  return signalled;
}

}  // namespace rtrace::recorder
