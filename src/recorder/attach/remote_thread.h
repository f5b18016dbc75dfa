// One thread of another process, stopped with ptrace so that it can be made to call functions
// of that process: PTRACE_SEIZE + PTRACE_INTERRUPT (only this thread stops; the others run on),
// a scratch area below its stack pointer (past the red zone) for the calls' data, and on
// destruction its registers and that memory as they were, and PTRACE_DETACH. A signal that
// arrived while it was stopped is delivered when it goes on.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "recorder/attach/attach_error.h"
#include "recorder/attach/machine_call.h"

namespace rtrace::recorder::attach {

class RemoteThread {
 public:
  // Stops thread `tid` (a process's pid is its main thread). Throws AttachError: no such
  // process, no permission (ptrace_scope), traced by another process, exited meanwhile.
  explicit RemoteThread(pid_t tid);
  RemoteThread(const RemoteThread&) = delete;
  RemoteThread& operator=(const RemoteThread&) = delete;
  ~RemoteThread();

  // Copies `text` with its terminating zero into the scratch area; returns its address there.
  std::uint64_t push_string(const std::string& text);
  // Calls `function(arguments...)` in the thread and returns what it returned. Throws
  // AttachError when the process exits meanwhile.
  std::uint64_t call(std::uint64_t function, const std::vector<std::uint64_t>& arguments);
  // The zero-terminated string at `address` (at most `limit` bytes).
  std::string read_string(std::uint64_t address, std::size_t limit = 4096);

 private:
  void wait_for_interrupt();
  void write_memory(std::uint64_t address, const void* data, std::size_t size);
  void read_memory(std::uint64_t address, void* data, std::size_t size);
  [[noreturn]] void exited_meanwhile();

  pid_t tid_;
  int memory_fd_ = -1;
  Registers saved_{};
  int pending_signal_ = 0;
  std::uint64_t scratch_high_ = 0;  // the scratch area: [scratch_low_, scratch_high_)
  std::uint64_t scratch_low_ = 0;
  std::uint64_t scratch_next_ = 0;  // grows down from scratch_high_
  std::vector<unsigned char> saved_scratch_;
};

}  // namespace rtrace::recorder::attach
