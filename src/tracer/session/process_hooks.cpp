// librtrace-main.so's interposers for the process events a trace must survive: loading and
// unloading libraries (new maps), exec, _exit and quick_exit (write everything out first), and a
// program
// closing or reusing the trace connection's file descriptor. fork is handled with
// pthread_atfork in trace_session.cpp.
//
// The real functions are found once, into a table, when the session starts (the first
// interposed call, or the library's constructor): `_exit` in particular runs in signal handlers,
// where looking a symbol up (the loader lock, an allocation, a C++ static guard) could deadlock.
#include "tracer/session/process_hooks.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "tracer/api/real_symbol.h"
#include "tracer/api/tracer_api.h"
#include "tracer/session/exec_environment.h"
#include "tracer/session/got_patcher.h"
#include "tracer/session/trace_session.h"

using rtrace::tracer::FinishReason;

namespace {

#define RTRACE_PROCESS_REAL_FUNCTIONS(FUNCTION, SYMBOL) \
  FUNCTION(dlopen)                                      \
  FUNCTION(dlclose)                                     \
  FUNCTION(execve)                                      \
  FUNCTION(execvpe)                                     \
  FUNCTION(fexecve)                                     \
  FUNCTION(posix_spawn)                                 \
  FUNCTION(posix_spawnp)                                \
  SYMBOL(exit, "_exit", void(int))                      \
  FUNCTION(quick_exit)                                  \
  FUNCTION(close)                                       \
  FUNCTION(close_range)                                 \
  FUNCTION(dup2)                                        \
  FUNCTION(dup3)
RTRACE_REAL_FUNCTIONS(RealProcessFunctions, RTRACE_PROCESS_REAL_FUNCTIONS);

constinit RealProcessFunctions g_real;
bool g_resolved = false;
bool g_quick_exit_flush_registered = false;

// The table; resolved here when a hook runs before the session started (another library's
// constructor calling close, say), which is never in a signal handler.
const RealProcessFunctions& real() {
  if (!__atomic_load_n(&g_resolved, __ATOMIC_ACQUIRE)) {
    rtrace::tracer::resolve_process_functions();
  }
  return g_real;
}

// "exec of PATH: ..." for a program the dynamic linker runs in secure mode: the trace says why
// the new image has none. In static storage: no allocation here, and an exec is one thread's.
char g_secure_exec_note[PATH_MAX + 160];

const char* secure_exec_note(const char* path) {
  if (!rtrace::tracer::exec_drops_preload(path)) {
    return nullptr;
  }
  char* out = g_secure_exec_note;
  const auto add = [&](const char* text) {
    const std::size_t room = g_secure_exec_note + sizeof g_secure_exec_note - 1 - out;
    const std::size_t length = std::min(std::strlen(text), room);
    std::memcpy(out, text, length);
    out += length;
  };
  add("exec of ");
  add(path);
  add(": a set-user-ID or set-group-ID program, into which the dynamic linker preloads no "
      "library: its new image is not traced");
  *out = '\0';
  return g_secure_exec_note;
}

// The file execvp would run for `file`: itself when it names a path, else the first executable
// of that name along PATH (into `buffer`); null when there is none.
const char* path_search(const char* file, char (&buffer)[PATH_MAX]) {
  if (file == nullptr || std::strchr(file, '/') != nullptr) {
    return file;
  }
  const char* path = nullptr;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    if (std::strncmp(*entry, "PATH=", 5) == 0) {
      path = *entry + 5;
    }
  }
  const std::size_t name_length = std::strlen(file);
  for (const char* at = path != nullptr ? path : "/bin:/usr/bin"; *at != '\0';) {
    const char* stop = std::strchr(at, ':');
    stop = stop != nullptr ? stop : at + std::strlen(at);
    const auto dir_length = static_cast<std::size_t>(stop - at);
    if (dir_length + name_length + 2 <= sizeof buffer) {
      std::memcpy(buffer, at, dir_length);
      buffer[dir_length] = '/';
      std::memcpy(buffer + dir_length + 1, file, name_length + 1);
      if (::access(buffer, X_OK) == 0) {
        return buffer;
      }
    }
    at = *stop != '\0' ? stop + 1 : stop;
  }
  return nullptr;
}

// Runs an exec-family function of `path`; if it returns (it failed), tracing goes on in a new
// trace.
template <typename Exec>
int around_exec(const char* path, Exec&& exec) {
  {
    rtrace::tracer::GuardScope guard;
    rtrace::tracer::session_finish(FinishReason::Exec, 0, secure_exec_note(path));
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

// execve of a file that does not exist fails without touching the process: a shell searching
// its PATH tries one such name per folder, and ending the trace and starting another around each
// would leave a trace per try. (A file created between this check and the exec is the one case
// that ends the process without its end record: the trace then reads as broken off.)
bool names_no_file(const char* path) {
  return path != nullptr && ::faccessat(AT_FDCWD, path, F_OK, AT_EACCESS) != 0 &&
         (errno == ENOENT || errno == ENOTDIR);
}

// The argument list of execl/execlp/execle, collected into `argv` (at most `capacity` entries).
std::size_t collect_arguments(const char* first, va_list& list, char** argv, std::size_t capacity) {
  std::size_t count = 0;
  argv[count++] = const_cast<char*>(first);
  while (count < capacity) {
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): the caller started `list`.
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

// execve and execv.
int exec_path(const char* path, char* const argv[], char* const envp[]) {
  const rtrace::tracer::ExecEnvironment environment(envp);
  if (names_no_file(path)) {
    return real().execve(path, argv, environment.get());
  }
  return around_exec(path, [&] { return real().execve(path, argv, environment.get()); });
}

// execvpe and execvp: the file along PATH.
int exec_file(const char* file, char* const argv[], char* const envp[]) {
  const rtrace::tracer::ExecEnvironment environment(envp);
  char found[PATH_MAX];
  return around_exec(path_search(file, found),
                     [&] { return real().execvpe(file, argv, environment.get()); });
}

bool is_connection(int fd) {
  return rtrace::tracer::session_owns_descriptor(fd);
}

// quick_exit's end: the C library calls its own _exit, which we never see.
void finish_at_quick_exit() {
  rtrace::tracer::GuardScope guard;
  rtrace::tracer::session_finish(FinishReason::FastExit);
}

}  // namespace

void rtrace::tracer::resolve_process_functions() {
  g_real.find_all();
  __atomic_store_n(&g_resolved, true, __ATOMIC_RELEASE);
}

void rtrace::tracer::register_quick_exit_flush() {
  if (!__atomic_load_n(&g_quick_exit_flush_registered, __ATOMIC_ACQUIRE)) {
    __atomic_store_n(&g_quick_exit_flush_registered, at_quick_exit(finish_at_quick_exit) == 0,
                     __ATOMIC_RELEASE);
  }
}

extern "C" {

RTRACE_EXPORT void* dlopen(const char* file, int mode) {
  void* handle = real().dlopen(file, mode);
  if (handle != nullptr && rtrace_guard == 0) {
    rtrace::tracer::GuardScope guard;
    rtrace::tracer::session_commit_maps();
    if ((mode & RTLD_DEEPBIND) != 0) {
      // Preloaded, its calls bind in a scope of its own, past the tracer (got_patcher.h).
      rtrace::tracer::got_collect_preloaded_hooks();
    }
    // Attached, or after such a dlopen: the new objects' calls too.
    rtrace::tracer::got_patch_objects();
  }
  return handle;
}

RTRACE_EXPORT int dlclose(void* handle) {
  const int result = real().dlclose(handle);
  if (rtrace_guard == 0) {
    rtrace::tracer::GuardScope guard;
    rtrace::tracer::got_forget_unloaded();
    rtrace::tracer::session_commit_maps();
  }
  return result;
}

// Every exec passes the environment through ExecEnvironment: the tracer's variables go with the
// new image even when the program cleared or replaced them (exec_environment.h).
RTRACE_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
  return exec_path(path, argv, envp);
}

RTRACE_EXPORT int execv(const char* path, char* const argv[]) {
  return exec_path(path, argv, environ);
}

RTRACE_EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) {
  return exec_file(file, argv, envp);
}

RTRACE_EXPORT int execvp(const char* file, char* const argv[]) {
  return exec_file(file, argv, environ);
}

RTRACE_EXPORT int fexecve(int fd, char* const argv[], char* const envp[]) {
  const rtrace::tracer::ExecEnvironment environment(envp);
  return around_exec(nullptr, [&] { return real().fexecve(fd, argv, environment.get()); });
}

RTRACE_EXPORT int posix_spawn(pid_t* pid, const char* path,
                              const posix_spawn_file_actions_t* file_actions,
                              const posix_spawnattr_t* attributes, char* const argv[],
                              char* const envp[]) {
  const rtrace::tracer::ExecEnvironment environment(envp);
  return real().posix_spawn(pid, path, file_actions, attributes, argv, environment.get());
}

RTRACE_EXPORT int posix_spawnp(pid_t* pid, const char* file,
                               const posix_spawn_file_actions_t* file_actions,
                               const posix_spawnattr_t* attributes, char* const argv[],
                               char* const envp[]) {
  const rtrace::tracer::ExecEnvironment environment(envp);
  return real().posix_spawnp(pid, file, file_actions, attributes, argv, environment.get());
}

RTRACE_EXPORT int execl(const char* path, const char* arg, ...) {
  char* argv[kMaxExecArguments];
  va_list list;
  va_start(list, arg);
  collect_arguments(arg, list, argv, kMaxExecArguments);
  va_end(list);
  return exec_path(path, argv, environ);
}

RTRACE_EXPORT int execlp(const char* file, const char* arg, ...) {
  char* argv[kMaxExecArguments];
  va_list list;
  va_start(list, arg);
  collect_arguments(arg, list, argv, kMaxExecArguments);
  va_end(list);
  return exec_file(file, argv, environ);
}

RTRACE_EXPORT int execle(const char* path, const char* arg, ...) {
  char* argv[kMaxExecArguments];
  va_list list;
  va_start(list, arg);
  collect_arguments(arg, list, argv, kMaxExecArguments);
  char* const* envp = va_arg(list, char* const*);
  va_end(list);
  return exec_path(path, argv, envp);
}

RTRACE_EXPORT void _exit(int status) {
  {
    rtrace::tracer::GuardScope guard;
    rtrace::tracer::session_finish(FinishReason::FastExit);
  }
  if (g_real.exit != nullptr) {
    g_real.exit(status);
  }
  ::syscall(SYS_exit_group, status);  // the table is not there yet: what _exit does
  __builtin_unreachable();
}

// NOLINTNEXTLINE(bugprone-reserved-identifier): the C library function we interpose.
RTRACE_EXPORT void _Exit(int status) {
  _exit(status);
}

// The program's at_quick_exit handlers run first, then ours (register_quick_exit_flush). Called
// before our constructor registered it (from another library's constructor), the trace is
// finished here: what those handlers do is not in it.
RTRACE_EXPORT void quick_exit(int status) noexcept {
  if (!__atomic_load_n(&g_quick_exit_flush_registered, __ATOMIC_ACQUIRE)) {
    finish_at_quick_exit();
  }
  if (real().quick_exit != nullptr) {
    real().quick_exit(status);
  }
  _exit(status);
}

// The program may close every descriptor it has (daemons do); the trace connection survives.
// Any other descriptor goes on to the next definition (the file module records it).
RTRACE_EXPORT int close(int fd) {
  if (is_connection(fd)) {
    return 0;
  }
  return real().close(fd);
}

RTRACE_EXPORT int close_range(unsigned int first, unsigned int last, int flags) {
  int own[2];
  const int count = rtrace::tracer::session_descriptors(own);
  // The ranges between the trace's descriptors (ascending), each closed on its own.
  unsigned int from = first;
  int result = 0;
  for (int i = 0; i < count && result == 0; ++i) {
    const auto fd = static_cast<unsigned int>(own[i]);
    if (fd < from || fd > last) {
      continue;
    }
    if (fd > from) {
      result = real().close_range(from, fd - 1, flags);
    }
    if (fd == last) {
      return result;
    }
    from = fd + 1;
  }
  return result == 0 ? real().close_range(from, last, flags) : result;
}

RTRACE_EXPORT void closefrom(int lowest) {
  close_range(static_cast<unsigned int>(lowest < 0 ? 0 : lowest), ~0U, 0);
}

// These hooks pass the program's calls on to the next definition (find_real: a tracing module
// preloaded after us, such as the file module, or the C library), so that later modules still
// see and record them. Moving the connection is the tracer's own business: under the guard.
RTRACE_EXPORT int dup2(int old_fd, int new_fd) {
  if (is_connection(new_fd) && old_fd != new_fd) {
    rtrace::tracer::GuardScope guard;
    rtrace::tracer::session_move_connection_from(new_fd);
  }
  return real().dup2(old_fd, new_fd);
}

RTRACE_EXPORT int dup3(int old_fd, int new_fd, int flags) {
  if (is_connection(new_fd)) {
    rtrace::tracer::GuardScope guard;
    rtrace::tracer::session_move_connection_from(new_fd);
  }
  return real().dup3(old_fd, new_fd, flags);
}
}
