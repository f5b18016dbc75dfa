#include "tracer/session/thread_stop.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "tracer/core/clock.h"
#include "tracer/core/decimal.h"

namespace rtrace::tracer {
namespace {

constexpr std::size_t kMaxThreads = 4096;

enum Step : int { Asked = 0, Stopped = 1, Left = 2 };

StoppedThread g_threads[kMaxThreads];
std::atomic<int> g_steps[kMaxThreads];
std::size_t g_thread_count = 0;
std::atomic<int> g_stopping{0};
std::atomic<int> g_resume{0};
struct sigaction g_previous {};
bool g_installed = false;

pid_t current_tid() {
  return static_cast<pid_t>(::syscall(SYS_gettid));
}

void futex_wait(std::atomic<int>& word, int value) {
  ::syscall(SYS_futex, reinterpret_cast<int*>(&word), FUTEX_WAIT_PRIVATE, value, nullptr, nullptr,
            0);
}

void futex_wake_all(std::atomic<int>& word) {
  ::syscall(SYS_futex, reinterpret_cast<int*>(&word), FUTEX_WAKE_PRIVATE, 0x7fffffff, nullptr,
            nullptr, 0);
}

void save_registers(StoppedThread& thread, const ucontext_t& context) {
#if defined(__x86_64__)
  thread.stack_pointer = static_cast<std::uintptr_t>(context.uc_mcontext.gregs[REG_RSP]);
  thread.register_count = NGREG < StoppedThread::kRegisterWords ? NGREG : 0;
  for (std::size_t i = 0; i < thread.register_count; ++i) {
    thread.registers[i] = static_cast<std::uintptr_t>(context.uc_mcontext.gregs[i]);
  }
#elif defined(__aarch64__)
  thread.stack_pointer = context.uc_mcontext.sp;
  thread.register_count = 31;
  for (std::size_t i = 0; i < thread.register_count; ++i) {
    thread.registers[i] = context.uc_mcontext.regs[i];
  }
#endif
  thread.thread_pointer = reinterpret_cast<std::uintptr_t>(__builtin_thread_pointer());
}

void chain_previous(int signal_number, siginfo_t* info, void* context) {
  if ((g_previous.sa_flags & SA_SIGINFO) != 0 && g_previous.sa_sigaction != nullptr) {
    g_previous.sa_sigaction(signal_number, info, context);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN &&
             g_previous.sa_handler != nullptr) {
    g_previous.sa_handler(signal_number);
  }
}

void on_stop_signal(int signal_number, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  if (g_stopping.load(std::memory_order_acquire) == 0) {
    chain_previous(signal_number, info, context);
    errno = saved_errno;
    return;
  }
  const pid_t tid = current_tid();
  for (std::size_t i = 0; i < g_thread_count; ++i) {
    if (g_threads[i].tid != tid) {
      continue;
    }
    save_registers(g_threads[i], *static_cast<const ucontext_t*>(context));
    g_steps[i].store(Stopped, std::memory_order_release);
    while (g_resume.load(std::memory_order_acquire) == 0) {
      futex_wait(g_resume, 0);
    }
    g_steps[i].store(Left, std::memory_order_release);
    break;
  }
  errno = saved_errno;
}

bool install_handler() {
  if (g_installed) {
    return true;
  }
  struct sigaction action {};
  action.sa_sigaction = on_stop_signal;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigfillset(&action.sa_mask);
  if (::sigaction(thread_stop_signal(), &action, &g_previous) != 0) {
    return false;
  }
  g_installed = true;
  return true;
}

// Reads /proc/self/task/TID/comm into `name` (NUL-terminated).
void thread_name(pid_t tid, char (&name)[32]) {
  char path[64] = "/proc/self/task/";
  char* end = path + std::strlen(path);
  end = write_decimal(end, static_cast<std::uint64_t>(tid));
  std::memcpy(end, "/comm", 6);
  name[0] = '\0';
  const int fd = static_cast<int>(::syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC));
  if (fd < 0) {
    return;
  }
  const long got = ::syscall(SYS_read, fd, name, sizeof name - 1);
  ::syscall(SYS_close, fd);
  name[got > 0 ? got : 0] = '\0';
}

struct LinuxDirent64 {
  std::uint64_t d_ino;
  std::int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[1];
};

// The threads to stop: every task of the process but the caller and the tracer's own.
void list_threads(pid_t self) {
  g_thread_count = 0;
  const int fd = static_cast<int>(
      ::syscall(SYS_openat, AT_FDCWD, "/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd < 0) {
    return;
  }
  alignas(8) char buffer[4096];
  for (;;) {
    const long got = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer);
    if (got <= 0) {
      break;
    }
    for (long pos = 0; pos < got;) {
      const auto* entry = reinterpret_cast<const LinuxDirent64*>(buffer + pos);
      pos += entry->d_reclen;
      pid_t tid = 0;
      for (const char* c = entry->d_name; *c >= '0' && *c <= '9'; ++c) {
        tid = tid * 10 + (*c - '0');
      }
      if (tid > 0 && tid != self && !tracer_thread(tid) && g_thread_count < kMaxThreads) {
        g_threads[g_thread_count] = {};
        g_threads[g_thread_count].tid = tid;
        g_steps[g_thread_count].store(Asked);
        ++g_thread_count;
      }
    }
  }
  ::syscall(SYS_close, fd);
}

}  // namespace

int thread_stop_signal() {
  return SIGRTMAX;
}

bool tracer_thread(pid_t tid) {
  char name[32];
  thread_name(tid, name);
  return std::strncmp(name, "rtrace:", 7) == 0;
}

StopResult stop_other_threads(long patience_ms) {
  const pid_t self = current_tid();
  const pid_t pid = ::getpid();
  list_threads(self);
  if (g_thread_count == 0 || !install_handler()) {
    return {g_threads, 0, g_thread_count};
  }
  g_resume.store(0);
  g_stopping.store(1, std::memory_order_release);
  for (std::size_t i = 0; i < g_thread_count; ++i) {
    if (::syscall(SYS_tgkill, pid, g_threads[i].tid, thread_stop_signal()) != 0) {
      g_steps[i].store(Left);  // gone meanwhile
    }
  }
  const std::uint64_t deadline =
      monotonic_nanoseconds() + static_cast<std::uint64_t>(patience_ms) * 1000000;
  for (;;) {
    std::size_t waiting = 0;
    for (std::size_t i = 0; i < g_thread_count; ++i) {
      waiting += g_steps[i].load(std::memory_order_acquire) == Asked ? 1 : 0;
    }
    if (waiting == 0 || monotonic_nanoseconds() >= deadline) {
      break;
    }
    ::sched_yield();
  }
  // Those that did not stop in time are not scanned.
  std::size_t missed = 0;
  for (std::size_t i = 0; i < g_thread_count; ++i) {
    g_threads[i].stopped = g_steps[i].load(std::memory_order_acquire) == Stopped;
    missed += g_steps[i].load() == Asked ? 1 : 0;
  }
  return {g_threads, g_thread_count, missed};
}

void resume_threads() {
  g_resume.store(1, std::memory_order_release);
  futex_wake_all(g_resume);
  // Every thread that stopped must have left the handler before another check reuses the slots.
  const std::uint64_t deadline = monotonic_nanoseconds() + 1000000000ULL;
  for (std::size_t i = 0; i < g_thread_count; ++i) {
    while (g_steps[i].load(std::memory_order_acquire) == Stopped &&
           monotonic_nanoseconds() < deadline) {
      ::sched_yield();
    }
  }
  g_stopping.store(0, std::memory_order_release);
}

}  // namespace rtrace::tracer
