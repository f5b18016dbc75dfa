#include "recorder/attach/remote_thread.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>

namespace rtrace::recorder::attach {
namespace {

// Room for the calls' data: the tracer's paths, options and socket name.
constexpr std::uint64_t kScratchSize = 16384;

std::string process_name(pid_t tid) {
  return "process " + std::to_string(tid);
}

// ptrace's data argument of PTRACE_CONT and PTRACE_DETACH: the signal to deliver, as a number.
void* signal_argument(int signal) {
  // NOLINTNEXTLINE(performance-no-int-to-ptr): the kernel reads it as a number
  return reinterpret_cast<void*>(static_cast<std::intptr_t>(signal));
}

}  // namespace

RemoteThread::RemoteThread(pid_t tid) : tid_(tid) {
  if (::ptrace(PTRACE_SEIZE, tid_, nullptr, nullptr) != 0) {
    const int error = errno;
    if (error == EPERM) {
      throw AttachError(no_permission_message(tid_));
    }
    if (error == ESRCH) {
      throw AttachError(process_name(tid_) + ": no such process");
    }
    throw AttachError(process_name(tid_) + ": ptrace: " + ::strerror(error));
  }
  try {
    if (::ptrace(PTRACE_INTERRUPT, tid_, nullptr, nullptr) != 0) {
      exited_meanwhile();
    }
    wait_for_interrupt();
    saved_ = read_registers(tid_);
    const std::string memory = "/proc/" + std::to_string(tid_) + "/mem";
    memory_fd_ = ::open(memory.c_str(), O_RDWR | O_CLOEXEC);
    if (memory_fd_ < 0) {
      throw AttachError(memory + ": " + ::strerror(errno));
    }
    scratch_high_ = stack_pointer(saved_) - kRedZone;
    scratch_low_ = scratch_high_ - kScratchSize;
    scratch_next_ = scratch_high_;
    saved_scratch_.resize(kScratchSize);
    read_memory(scratch_low_, saved_scratch_.data(), saved_scratch_.size());
  } catch (...) {
    if (memory_fd_ >= 0) {
      ::close(memory_fd_);
    }
    ::ptrace(PTRACE_DETACH, tid_, nullptr, signal_argument(pending_signal_));
    throw;
  }
}

RemoteThread::~RemoteThread() {
  // Best effort: a process that exited meanwhile has nothing left to restore.
  if (::pwrite(memory_fd_, saved_scratch_.data(), saved_scratch_.size(),
               static_cast<off_t>(scratch_low_)) < 0) {
    errno = 0;
  }
  try {
    write_registers(tid_, saved_);
  } catch (const std::exception&) {
    errno = 0;
  }
  ::close(memory_fd_);
  ::ptrace(PTRACE_DETACH, tid_, nullptr, signal_argument(pending_signal_));
}

void RemoteThread::exited_meanwhile() {
  throw AttachError(process_name(tid_) + " exited during the attach");
}

// The first stop after PTRACE_INTERRUPT: the interrupt itself, or a signal arriving first
// (kept, and delivered when the thread goes on).
void RemoteThread::wait_for_interrupt() {
  for (;;) {
    int status = 0;
    if (::waitpid(tid_, &status, __WALL) < 0) {
      if (errno == EINTR) {
        continue;
      }
      exited_meanwhile();
    }
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      exited_meanwhile();
    }
    if (!WIFSTOPPED(status)) {
      continue;
    }
    if ((status >> 16) == PTRACE_EVENT_STOP) {
      return;
    }
    pending_signal_ = WSTOPSIG(status);
    return;
  }
}

std::uint64_t RemoteThread::push_string(const std::string& text) {
  const std::uint64_t size = text.size() + 1;
  if (scratch_next_ - scratch_low_ < size + 64) {
    throw AttachError(process_name(tid_) + ": the tracer's settings are too long to pass");
  }
  scratch_next_ = (scratch_next_ - size) & ~std::uint64_t{15};
  write_memory(scratch_next_, text.c_str(), size);
  return scratch_next_;
}

std::uint64_t RemoteThread::call(std::uint64_t function,
                                 const std::vector<std::uint64_t>& arguments) {
  // The callee's frames go below the data.
  const CallSetup setup = call_setup(saved_, function, arguments, scratch_low_);
  if (setup.return_address_slot) {
    const std::uint64_t trap_address = 0;
    write_memory(*setup.return_address_slot, &trap_address, sizeof trap_address);
  }
  write_registers(tid_, setup.registers);
  int resume_signal = 0;
  for (;;) {
    if (::ptrace(PTRACE_CONT, tid_, nullptr, signal_argument(resume_signal)) != 0) {
      exited_meanwhile();
    }
    resume_signal = 0;
    int status = 0;
    while (::waitpid(tid_, &status, __WALL) < 0) {
      if (errno != EINTR) {
        exited_meanwhile();
      }
    }
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      exited_meanwhile();
    }
    if (!WIFSTOPPED(status) || (status >> 16) == PTRACE_EVENT_STOP) {
      continue;  // the interrupt's own stop, or a group stop: go on
    }
    const int signal = WSTOPSIG(status);
    if (signal == SIGSEGV) {
      const Registers now = read_registers(tid_);
      if (instruction_pointer(now) == 0) {
        return return_value(now);  // returned to the trap address
      }
    }
    resume_signal = signal;  // the program's own signal, delivered as it would have been
  }
}

std::string RemoteThread::read_string(std::uint64_t address, std::size_t limit) {
  std::string text(limit, '\0');
  const ssize_t got = ::pread(memory_fd_, text.data(), limit, static_cast<off_t>(address));
  text.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  const std::size_t end = text.find('\0');
  if (end != std::string::npos) {
    text.resize(end);
  }
  return text;
}

void RemoteThread::write_memory(std::uint64_t address, const void* data, std::size_t size) {
  if (::pwrite(memory_fd_, data, size, static_cast<off_t>(address)) != static_cast<ssize_t>(size)) {
    throw AttachError(process_name(tid_) + ": cannot write its stack: " + ::strerror(errno));
  }
}

void RemoteThread::read_memory(std::uint64_t address, void* data, std::size_t size) {
  if (::pread(memory_fd_, data, size, static_cast<off_t>(address)) != static_cast<ssize_t>(size)) {
    throw AttachError(process_name(tid_) + ": cannot read its stack: " + ::strerror(errno));
  }
}

}  // namespace rtrace::recorder::attach
