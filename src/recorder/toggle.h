// Toggling tracing of a running process: the tracer inside it starts or stops on a signal.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace rtrace::recorder {

// A signal by number ("12") or name ("SIGUSR2", "USR2", case-insensitive); nothing when unknown.
std::optional<int> parse_signal(const std::string& text);

// Whether `pid` has the main tracing module loaded (it was started under rtrace record).
bool is_traced(pid_t pid);

// The children of `pid`, and theirs, from /proc/<pid>/task/*/children.
std::vector<pid_t> descendants(pid_t pid);

// Sends `signal` to `pid` and, with `follow_forks`, to its traced descendants. `pid` may also be
// the recorder's (or any untraced parent's): its traced children are signalled then. Returns the
// processes signalled. Throws std::runtime_error when `pid` does not exist ("no such process"),
// neither is nor has a traced child, or cannot be signalled.
std::vector<pid_t> toggle_tracing(pid_t pid, int signal, bool follow_forks);

}  // namespace rtrace::recorder
