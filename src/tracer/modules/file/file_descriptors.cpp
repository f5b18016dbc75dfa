// librtrace-file.so: every function that creates or releases a file descriptor, recorded as the
// original's file module records it (resource `fd`, size 1, the id is the descriptor):
//  * open/open64/openat/openat64 with `$path` and `$flags` (hex), creat/creat64 with `$path` and
//    `$mode` (hex); socket/socketpair with `$domain`, `$type`, `$protocol` (hex); pipe2 with
//    `$flags`; accept/accept4 with `$path` when the peer is a named UNIX socket;
//  * dup/fcntl(F_DUPFD[_CLOEXEC]) with `$oldfd` (decimal) and `$type` (what the old descriptor
//    is, "(unknown)" when the module did not see it created); dup2/dup3 onto another number
//    first record the release of that number (as the original, whether it was open or not), then
//    the new descriptor;
//  * pipe/pipe2/socketpair record both descriptors; signalfd only when it creates one (fd -1);
//  * close records a release. Failed calls record nothing.
// Unlike the original, fcntl(F_DUPFD) records no release of its third argument (a lower bound,
// not a descriptor), and memfd_create and the *64 forms are traced too.
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstddef>
#include <cstring>

#include "tracer/modules/file/file_tracing.h"

using rtrace::tracer::fd_kind;
using rtrace::tracer::fd_kind_name;
using rtrace::tracer::FdKind;
using rtrace::tracer::FdRelease;
using rtrace::tracer::file_module_ready;
using rtrace::tracer::file_tracing_now;
using rtrace::tracer::FileGuard;
using rtrace::tracer::format_hex;
using rtrace::tracer::format_int;
using rtrace::tracer::g_file_real;
using rtrace::tracer::record_fd;
using rtrace::tracer::record_fd_path;
using rtrace::tracer::remember_fd;

namespace {

// While the real functions are being found on this thread (dlsym calling us): no table yet.
int unavailable() {
  errno = ENOSYS;
  return -1;
}

// Runs `create` (a descriptor, or -1) under the module's guard; when it succeeded, remembers the
// descriptor's kind and, when tracing, records it with `record(fd)`.
template <typename Create, typename Record>
int traced_descriptor(FdKind kind, Create&& create, Record&& record) {
  if (!file_tracing_now()) {
    const int fd = create();
    remember_fd(fd, kind);
    return fd;
  }
  int fd = -1;
  {
    FileGuard guard;
    fd = create();
  }
  if (fd >= 0) {
    remember_fd(fd, kind);
    record(fd);
  }
  return fd;
}

// The functions that take no argument worth recording (eventfd, epoll_create, ...).
template <typename Create>
int plain_descriptor(const char* name, FdKind kind, const void* return_address, Create&& create) {
  return traced_descriptor(kind, create, [&](int fd) { record_fd(name, fd, return_address); });
}

// open and its relatives: `$path` and `$flags`.
template <typename Open>
int traced_open(const char* name, const char* path, int flags, const void* return_address,
                Open&& open) {
  return traced_descriptor(FdKind::File, open, [&](int fd) {
    record_fd_path(name, fd, path, "flags", static_cast<unsigned int>(flags), return_address);
  });
}

template <typename Create>
int traced_creat(const char* name, const char* path, mode_t mode, const void* return_address,
                 Create&& create) {
  return traced_descriptor(FdKind::File, create, [&](int fd) {
    record_fd_path(name, fd, path, "mode", mode, return_address);
  });
}

// The mode argument of open and its relatives: there only when the flags ask for one. A macro:
// va_start must run in the variadic function itself.
#define RTRACE_OPEN_MODE(mode, flags)                  \
  do {                                                 \
    if (__OPEN_NEEDS_MODE(flags)) {                    \
      va_list list;                                    \
      va_start(list, flags);                           \
      (mode) = static_cast<mode_t>(va_arg(list, int)); \
      va_end(list);                                    \
    }                                                  \
  } while (false)

// dup, fcntl(F_DUPFD): the new descriptor with `$oldfd` and `$type` (what the old one is).
template <typename Duplicate>
int traced_dup(const char* name, int old_fd, const void* return_address, Duplicate&& duplicate) {
  const FdKind kind = fd_kind(old_fd);
  return traced_descriptor(kind, duplicate, [&](int fd) {
    char old_text[16];
    format_int(old_text, old_fd);
    const RtraceArg args[] = {{"oldfd", old_text}, {"type", fd_kind_name(kind)}};
    record_fd(name, fd, return_address, args, 2);
  });
}

// dup2, dup3: onto the same number nothing happens (and nothing is recorded); onto another, the
// release of that number first (whatever was there is closed), then the new descriptor.
template <typename Duplicate>
int traced_dup_onto(const char* name, int old_fd, int new_fd, const void* return_address,
                    Duplicate&& duplicate) {
  if (old_fd == new_fd || !file_tracing_now()) {
    const FdKind kind = fd_kind(old_fd);
    const int fd = duplicate();
    if (old_fd != new_fd) {
      remember_fd(fd, kind);
    }
    return fd;
  }
  int fd = -1;
  {
    FdRelease release(name, new_fd, return_address);
    FileGuard guard;
    fd = duplicate();
    if (fd >= 0) {
      release.commit();
    } else {
      release.cancel();
    }
  }
  return fd < 0 ? fd : traced_dup(name, old_fd, return_address, [fd] { return fd; });
}

// socket, socketpair: `$domain`, `$type`, `$protocol`.
void record_socket(const char* name, int fd, int domain, int type, int protocol,
                   const void* return_address) {
  char domain_text[16];
  char type_text[16];
  char protocol_text[16];
  format_hex(domain_text, static_cast<unsigned int>(domain));
  format_hex(type_text, static_cast<unsigned int>(type));
  format_hex(protocol_text, static_cast<unsigned int>(protocol));
  const RtraceArg args[] = {
      {"domain", domain_text}, {"type", type_text}, {"protocol", protocol_text}};
  record_fd(name, fd, return_address, args, 3);
}

// pipe, pipe2, socketpair: both descriptors, or nothing.
template <typename Create, typename Record>
int traced_pair(FdKind kind, int* fds, Create&& create, Record&& record) {
  if (!file_tracing_now()) {
    const int result = create();
    if (result == 0) {
      remember_fd(fds[0], kind);
      remember_fd(fds[1], kind);
    }
    return result;
  }
  int result = -1;
  {
    FileGuard guard;
    result = create();
  }
  if (result == 0) {
    remember_fd(fds[0], kind);
    remember_fd(fds[1], kind);
    record(fds[0]);
    record(fds[1]);
  }
  return result;
}

// The name of the UNIX socket peer at `address`, of which the call wrote `written` bytes; null
// for another family, an unnamed peer (the kernel writes only its family, and the rest of the
// program's buffer is whatever the stack held), an abstract name, or a name without its NUL.
const char* unix_peer_path(const sockaddr* address, socklen_t written) {
  constexpr socklen_t kPathOffset = offsetof(sockaddr_un, sun_path);
  if (address == nullptr || written <= kPathOffset || address->sa_family != AF_UNIX) {
    return nullptr;
  }
  const auto* unix_address = reinterpret_cast<const sockaddr_un*>(address);
  const std::size_t path_bytes =
      std::min<std::size_t>(written - kPathOffset, sizeof unix_address->sun_path);
  if (unix_address->sun_path[0] == '\0' ||
      std::memchr(unix_address->sun_path, '\0', path_bytes) == nullptr) {
    return nullptr;
  }
  return unix_address->sun_path;
}

// accept, accept4: `$path` when the peer is a UNIX socket with a name. Only what the call wrote
// is read: the address's length after the call, and never past the buffer the program gave (the
// length before it; a longer address is cut to it).
template <typename Accept>
int traced_accept(const char* name, sockaddr* address, socklen_t* length,
                  const void* return_address, Accept&& accept) {
  const socklen_t capacity = length != nullptr ? *length : 0;
  return traced_descriptor(FdKind::Socket, accept, [&](int fd) {
    const socklen_t written = length != nullptr ? std::min(capacity, *length) : 0;
    if (const char* path = unix_peer_path(address, written)) {
      const RtraceArg args[] = {{"path", path}};
      record_fd(name, fd, return_address, args, 1);
      return;
    }
    record_fd(name, fd, return_address);
  });
}

}  // namespace

extern "C" {

RTRACE_EXPORT int open(const char* path, int flags, ...) {
  mode_t mode = 0;
  RTRACE_OPEN_MODE(mode, flags);
  if (!file_module_ready()) {
    return static_cast<int>(::syscall(SYS_openat, AT_FDCWD, path, flags, mode));
  }
  return traced_open("open", path, flags, __builtin_return_address(0),
                     [&] { return g_file_real.open(path, flags, mode); });
}

RTRACE_EXPORT int open64(const char* path, int flags, ...) {
  mode_t mode = 0;
  RTRACE_OPEN_MODE(mode, flags);
  if (!file_module_ready()) {
    return static_cast<int>(::syscall(SYS_openat, AT_FDCWD, path, flags, mode));
  }
  return traced_open("open64", path, flags, __builtin_return_address(0),
                     [&] { return g_file_real.open64(path, flags, mode); });
}

RTRACE_EXPORT int openat(int directory, const char* path, int flags, ...) {
  mode_t mode = 0;
  RTRACE_OPEN_MODE(mode, flags);
  if (!file_module_ready()) {
    return static_cast<int>(::syscall(SYS_openat, directory, path, flags, mode));
  }
  return traced_open("openat", path, flags, __builtin_return_address(0),
                     [&] { return g_file_real.openat(directory, path, flags, mode); });
}

RTRACE_EXPORT int openat64(int directory, const char* path, int flags, ...) {
  mode_t mode = 0;
  RTRACE_OPEN_MODE(mode, flags);
  if (!file_module_ready()) {
    return static_cast<int>(::syscall(SYS_openat, directory, path, flags, mode));
  }
  return traced_open("openat64", path, flags, __builtin_return_address(0),
                     [&] { return g_file_real.openat64(directory, path, flags, mode); });
}

RTRACE_EXPORT int creat(const char* path, mode_t mode) {
  if (!file_module_ready()) {
    return unavailable();
  }
  return traced_creat("creat", path, mode, __builtin_return_address(0),
                      [&] { return g_file_real.creat(path, mode); });
}

RTRACE_EXPORT int creat64(const char* path, mode_t mode) {
  if (!file_module_ready()) {
    return unavailable();
  }
  return traced_creat("creat64", path, mode, __builtin_return_address(0),
                      [&] { return g_file_real.creat64(path, mode); });
}

RTRACE_EXPORT int close(int fd) {
  if (!file_module_ready()) {
    return static_cast<int>(::syscall(SYS_close, fd));
  }
  if (!file_tracing_now()) {
    const int result = g_file_real.close(fd);
    if (result == 0) {
      remember_fd(fd, FdKind::Unknown);
    }
    return result;
  }
  FdRelease release("close", fd, __builtin_return_address(0));
  FileGuard guard;
  const int result = g_file_real.close(fd);
  if (result == 0) {
    remember_fd(fd, FdKind::Unknown);
    release.commit();
  } else {
    release.cancel();
  }
  return result;
}

RTRACE_EXPORT int dup(int old_fd) {
  if (!file_module_ready()) {
    return unavailable();
  }
  return traced_dup("dup", old_fd, __builtin_return_address(0),
                    [&] { return g_file_real.dup(old_fd); });
}

RTRACE_EXPORT int dup2(int old_fd, int new_fd) {
  if (!file_module_ready()) {
    return static_cast<int>(::syscall(SYS_dup2, old_fd, new_fd));
  }
  return traced_dup_onto("dup2", old_fd, new_fd, __builtin_return_address(0),
                         [&] { return g_file_real.dup2(old_fd, new_fd); });
}

RTRACE_EXPORT int dup3(int old_fd, int new_fd, int flags) {
  if (!file_module_ready()) {
    return static_cast<int>(::syscall(SYS_dup3, old_fd, new_fd, flags));
  }
  return traced_dup_onto("dup3", old_fd, new_fd, __builtin_return_address(0),
                         [&] { return g_file_real.dup3(old_fd, new_fd, flags); });
}

// Every command passes its third argument on (a pointer-sized value, as glibc reads it); only
// F_DUPFD and F_DUPFD_CLOEXEC make a descriptor.
RTRACE_EXPORT int fcntl(int fd, int command, ...) {
  va_list list;
  va_start(list, command);
  void* argument = va_arg(list, void*);
  va_end(list);
  if (!file_module_ready()) {
    return static_cast<int>(::syscall(SYS_fcntl, fd, command, argument));
  }
  if (command != F_DUPFD && command != F_DUPFD_CLOEXEC) {
    return g_file_real.fcntl(fd, command, argument);
  }
  return traced_dup("fcntl", fd, __builtin_return_address(0),
                    [&] { return g_file_real.fcntl(fd, command, argument); });
}

RTRACE_EXPORT int pipe(int fds[2]) {
  if (!file_module_ready()) {
    return unavailable();
  }
  const void* return_address = __builtin_return_address(0);
  return traced_pair(
      FdKind::Pipe, fds, [&] { return g_file_real.pipe(fds); },
      [&](int fd) { record_fd("pipe", fd, return_address); });
}

RTRACE_EXPORT int pipe2(int fds[2], int flags) {
  if (!file_module_ready()) {
    return unavailable();
  }
  const void* return_address = __builtin_return_address(0);
  return traced_pair(
      FdKind::Pipe, fds, [&] { return g_file_real.pipe2(fds, flags); },
      [&](int fd) {
        char flags_text[16];
        format_hex(flags_text, static_cast<unsigned int>(flags));
        const RtraceArg args[] = {{"flags", flags_text}};
        record_fd("pipe2", fd, return_address, args, 1);
      });
}

RTRACE_EXPORT int socket(int domain, int type, int protocol) {
  if (!file_module_ready()) {
    return unavailable();
  }
  const void* return_address = __builtin_return_address(0);
  return traced_descriptor(
      FdKind::Socket, [&] { return g_file_real.socket(domain, type, protocol); },
      [&](int fd) { record_socket("socket", fd, domain, type, protocol, return_address); });
}

RTRACE_EXPORT int socketpair(int domain, int type, int protocol, int fds[2]) {
  if (!file_module_ready()) {
    return unavailable();
  }
  const void* return_address = __builtin_return_address(0);
  return traced_pair(
      FdKind::Socket, fds, [&] { return g_file_real.socketpair(domain, type, protocol, fds); },
      [&](int fd) { record_socket("socketpair", fd, domain, type, protocol, return_address); });
}

RTRACE_EXPORT int accept(int fd, sockaddr* address, socklen_t* length) {
  if (!file_module_ready()) {
    return unavailable();
  }
  return traced_accept("accept", address, length, __builtin_return_address(0),
                       [&] { return g_file_real.accept(fd, address, length); });
}

RTRACE_EXPORT int accept4(int fd, sockaddr* address, socklen_t* length, int flags) {
  if (!file_module_ready()) {
    return unavailable();
  }
  return traced_accept("accept4", address, length, __builtin_return_address(0),
                       [&] { return g_file_real.accept4(fd, address, length, flags); });
}

RTRACE_EXPORT int eventfd(unsigned int initial, int flags) {
  if (!file_module_ready()) {
    return unavailable();
  }
  return plain_descriptor("eventfd", FdKind::EventFd, __builtin_return_address(0),
                          [&] { return g_file_real.eventfd(initial, flags); });
}

// signalfd(fd, ...) with an existing descriptor changes its mask: only fd -1 makes one.
RTRACE_EXPORT int signalfd(int fd, const sigset_t* mask, int flags) {
  if (!file_module_ready()) {
    return unavailable();
  }
  if (fd != -1) {
    return g_file_real.signalfd(fd, mask, flags);
  }
  return plain_descriptor("signalfd", FdKind::SignalFd, __builtin_return_address(0),
                          [&] { return g_file_real.signalfd(fd, mask, flags); });
}

RTRACE_EXPORT int timerfd_create(int clock, int flags) {
  if (!file_module_ready()) {
    return unavailable();
  }
  return plain_descriptor("timerfd_create", FdKind::TimerFd, __builtin_return_address(0),
                          [&] { return g_file_real.timerfd_create(clock, flags); });
}

RTRACE_EXPORT int epoll_create(int size) {
  if (!file_module_ready()) {
    return unavailable();
  }
  return plain_descriptor("epoll_create", FdKind::Epoll, __builtin_return_address(0),
                          [&] { return g_file_real.epoll_create(size); });
}

RTRACE_EXPORT int epoll_create1(int flags) {
  if (!file_module_ready()) {
    return unavailable();
  }
  return plain_descriptor("epoll_create1", FdKind::Epoll, __builtin_return_address(0),
                          [&] { return g_file_real.epoll_create1(flags); });
}

RTRACE_EXPORT int inotify_init() {
  if (!file_module_ready()) {
    return unavailable();
  }
  return plain_descriptor("inotify_init", FdKind::Inotify, __builtin_return_address(0),
                          [&] { return g_file_real.inotify_init(); });
}

RTRACE_EXPORT int inotify_init1(int flags) {
  if (!file_module_ready()) {
    return unavailable();
  }
  return plain_descriptor("inotify_init1", FdKind::Inotify, __builtin_return_address(0),
                          [&] { return g_file_real.inotify_init1(flags); });
}

// Not in the original: `$name` and `$flags` (hex).
RTRACE_EXPORT int memfd_create(const char* name, unsigned int flags) {
  if (!file_module_ready()) {
    return unavailable();
  }
  const void* return_address = __builtin_return_address(0);
  return traced_descriptor(
      FdKind::MemFd, [&] { return g_file_real.memfd_create(name, flags); },
      [&](int fd) {
        char flags_text[16];
        format_hex(flags_text, flags);
        const RtraceArg args[] = {{"name", name}, {"flags", flags_text}};
        record_fd("memfd_create", fd, return_address, args, 2);
      });
}

// The master side of a pseudo-terminal: `$flags` for posix_openpt, nothing for getpt (glibc
// opens /dev/ptmx with its internal open, which the module does not see twice).
RTRACE_EXPORT int posix_openpt(int flags) {
  if (!file_module_ready()) {
    return unavailable();
  }
  const void* return_address = __builtin_return_address(0);
  return traced_descriptor(
      FdKind::Terminal, [&] { return g_file_real.posix_openpt(flags); },
      [&](int fd) {
        char flags_text[16];
        format_hex(flags_text, static_cast<unsigned int>(flags));
        const RtraceArg args[] = {{"flags", flags_text}};
        record_fd("posix_openpt", fd, return_address, args, 1);
      });
}

RTRACE_EXPORT int getpt() {
  if (!file_module_ready()) {
    return unavailable();
  }
  return plain_descriptor("getpt", FdKind::Terminal, __builtin_return_address(0),
                          [&] { return g_file_real.getpt(); });
}
}
