// Why a process could not be attached or detached, in words for the user.
#pragma once

#include <sys/types.h>

#include <stdexcept>
#include <string>

namespace rtrace::recorder::attach {

class AttachError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "process PID: no permission...": what to check when ptrace or /proc/PID/maps is refused.
inline std::string no_permission_message(pid_t pid) {
  return "process " + std::to_string(pid) +
         ": no permission to trace it (ptrace): attach to a process of your own user, or as "
         "root; with the Yama module, /proc/sys/kernel/yama/ptrace_scope must be 0 to attach to "
         "a process that is not your child (as root: sysctl kernel.yama.ptrace_scope=0; 1 allows "
         "it to root only with CAP_SYS_PTRACE, 3 never)";
}

}  // namespace rtrace::recorder::attach
