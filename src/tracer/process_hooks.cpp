// librtrace-main.so's interposers for the process events a trace must survive: loading and
// unloading libraries (new maps), exec and _exit (write everything out first), and a program
// closing or reusing the trace connection's file descriptor. fork is handled with
// pthread_atfork in trace_session.cpp.
#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstddef>

#include "tracer/trace_session.h"
#include "tracer/tracer_api.h"

using rtrace::tracer::FinishReason;

namespace {

template <typename Function>
Function next_function(const char* name) {
  return reinterpret_cast<Function>(::dlsym(RTLD_NEXT, name));
}

// Runs an exec-family function; if it returns (it failed), tracing goes on in a new trace.
template <typename Exec>
int around_exec(Exec&& exec) {
  {
    rtrace::tracer::GuardScope guard;
    rtrace::tracer::session_finish(FinishReason::Exec);
  }
  const int result = exec();
  const int saved_errno = errno;
  {
    rtrace::tracer::GuardScope guard;
    rtrace::tracer::session_resume_after_exec();
  }
  errno = saved_errno;
  return result;
}

// The argument list of execl/execlp/execle, collected into `argv` (at most `capacity` entries).
std::size_t collect_arguments(const char* first, va_list& list, char** argv, std::size_t capacity) {
  std::size_t count = 0;
  argv[count++] = const_cast<char*>(first);
  while (count < capacity) {
    char* next = va_arg(list, char*);
    argv[count++] = next;
    if (next == nullptr) {
      break;
    }
  }
  argv[capacity - 1] = nullptr;
  return count;
}

constexpr std::size_t kMaxExecArguments = 4096;

bool is_connection(int fd) {
  return fd >= 0 && fd == rtrace::tracer::session_connection_fd();
}

}  // namespace

extern "C" {

RTRACE_EXPORT void* dlopen(const char* file, int mode) {
  static const auto real = next_function<void* (*)(const char*, int)>("dlopen");
  void* handle = real(file, mode);
  if (handle != nullptr && rtrace_guard == 0) {
    rtrace::tracer::GuardScope guard;
    rtrace::tracer::session_commit_maps();
  }
  return handle;
}

RTRACE_EXPORT int dlclose(void* handle) {
  static const auto real = next_function<int (*)(void*)>("dlclose");
  const int result = real(handle);
  if (rtrace_guard == 0) {
    rtrace::tracer::GuardScope guard;
    rtrace::tracer::session_commit_maps();
  }
  return result;
}

RTRACE_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
  static const auto real =
      next_function<int (*)(const char*, char* const[], char* const[])>("execve");
  return around_exec([&] { return real(path, argv, envp); });
}

RTRACE_EXPORT int execv(const char* path, char* const argv[]) {
  static const auto real = next_function<int (*)(const char*, char* const[])>("execv");
  return around_exec([&] { return real(path, argv); });
}

RTRACE_EXPORT int execvp(const char* file, char* const argv[]) {
  static const auto real = next_function<int (*)(const char*, char* const[])>("execvp");
  return around_exec([&] { return real(file, argv); });
}

RTRACE_EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) {
  static const auto real =
      next_function<int (*)(const char*, char* const[], char* const[])>("execvpe");
  return around_exec([&] { return real(file, argv, envp); });
}

RTRACE_EXPORT int fexecve(int fd, char* const argv[], char* const envp[]) {
  static const auto real = next_function<int (*)(int, char* const[], char* const[])>("fexecve");
  return around_exec([&] { return real(fd, argv, envp); });
}

RTRACE_EXPORT int execl(const char* path, const char* arg, ...) {
  char* argv[kMaxExecArguments];
  va_list list;
  va_start(list, arg);
  collect_arguments(arg, list, argv, kMaxExecArguments);
  va_end(list);
  return execv(path, argv);
}

RTRACE_EXPORT int execlp(const char* file, const char* arg, ...) {
  char* argv[kMaxExecArguments];
  va_list list;
  va_start(list, arg);
  collect_arguments(arg, list, argv, kMaxExecArguments);
  va_end(list);
  return execvp(file, argv);
}

RTRACE_EXPORT int execle(const char* path, const char* arg, ...) {
  char* argv[kMaxExecArguments];
  va_list list;
  va_start(list, arg);
  collect_arguments(arg, list, argv, kMaxExecArguments);
  char* const* envp = va_arg(list, char* const*);
  va_end(list);
  return execve(path, argv, envp);
}

RTRACE_EXPORT void _exit(int status) {
  static const auto real = next_function<void (*)(int)>("_exit");
  {
    rtrace::tracer::GuardScope guard;
    rtrace::tracer::session_finish(FinishReason::FastExit);
  }
  real(status);
  __builtin_unreachable();
}

// NOLINTNEXTLINE(bugprone-reserved-identifier): the C library function we interpose.
RTRACE_EXPORT void _Exit(int status) {
  _exit(status);
}

// The program may close every descriptor it has (daemons do); the trace connection survives.
RTRACE_EXPORT int close(int fd) {
  static const auto real = next_function<int (*)(int)>("close");
  if (is_connection(fd)) {
    return 0;
  }
  return real(fd);
}

RTRACE_EXPORT int close_range(unsigned int first, unsigned int last, int flags) {
  static const auto real = next_function<int (*)(unsigned int, unsigned int, int)>("close_range");
  const int fd = rtrace::tracer::session_connection_fd();
  if (fd < 0 || static_cast<unsigned int>(fd) < first || static_cast<unsigned int>(fd) > last) {
    return real(first, last, flags);
  }
  const auto own = static_cast<unsigned int>(fd);
  int result = 0;
  if (own > first) {
    result = real(first, own - 1, flags);
  }
  if (result == 0 && own < last) {
    result = real(own + 1, last, flags);
  }
  return result;
}

RTRACE_EXPORT void closefrom(int lowest) {
  close_range(static_cast<unsigned int>(lowest < 0 ? 0 : lowest), ~0U, 0);
}

RTRACE_EXPORT int dup2(int old_fd, int new_fd) {
  static const auto real = next_function<int (*)(int, int)>("dup2");
  if (is_connection(new_fd) && old_fd != new_fd) {
    rtrace::tracer::session_move_connection_from(new_fd);
  }
  return real(old_fd, new_fd);
}

RTRACE_EXPORT int dup3(int old_fd, int new_fd, int flags) {
  static const auto real = next_function<int (*)(int, int, int)>("dup3");
  if (is_connection(new_fd)) {
    rtrace::tracer::session_move_connection_from(new_fd);
  }
  return real(old_fd, new_fd, flags);
}
}
