// Toggling tracing of a running process: the tracer inside it starts or stops on a signal.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace rtrace::recorder {

// A signal by number ("12") or name ("SIGUSR2", "USR2", case-insensitive); nothing when unknown.
std::optional<int> parse_signal(const std::string& text);

// Why `signal` cannot toggle tracing (SIGKILL and SIGSTOP cannot be caught), or nothing.
std::optional<std::string> unusable_toggle_signal(int signal);

// Whether `pid` has the main tracing module loaded (it was started under rtrace record).
bool is_traced(pid_t pid);

// The children of `pid`, and theirs, from /proc/<pid>/task/*/children.
std::vector<pid_t> descendants(pid_t pid);

// A toggled process and whether it traces now.
struct Toggled {
  pid_t pid;
  bool tracing;
};

// Sends `signal` to `pid` and, with `follow_forks`, to its traced descendants, and waits until
// each says (by its tracer's control thread name, "rtrace:on"/"rtrace:off") that tracing
// switched. A process without a control thread has not traced since it started (the thread
// starts with tracing): its tracer answers by opening its trace connection (a descriptor from
// 1000 up). `pid` may also be the recorder's (or any untraced parent's): its traced children are
// toggled then. Throws std::runtime_error naming the process when it does not exist ("no such
// process"), neither is nor has a traced child, does not catch `signal` (it would be killed or
// stopped: it was started with another -S, or the program reset the handler; nothing is sent
// then), or did not switch within `patience_ms` (the program handles the signal itself).
std::vector<Toggled> toggle_tracing(pid_t pid, int signal, bool follow_forks,
                                    int patience_ms = 3000);

}  // namespace rtrace::recorder
