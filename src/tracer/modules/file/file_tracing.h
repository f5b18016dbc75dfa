// What the file module's descriptor wrappers (file_descriptors.cpp) and stream wrappers
// (file_streams.cpp) share: the real functions, the module's start and guard, the two resource
// types the original registers (`fd (file descriptor)`, `fp (file pointer)`), the record helpers
// bound to them and the kind of each descriptor (the `$type` argument of dup's records).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdint>

#include "tracer/api/module_sdk.h"

namespace rtrace::tracer {

// The functions the wrappers call: the next definition after librtrace-file.so (find_real), so
// that a module preloaded later that wraps the same function (shmposix's close) still sees it.
// Each once, typed by the C library's declarations; close last: its presence says the table is
// complete.
#define RTRACE_FILE_REAL_FUNCTIONS(FUNCTION, SYMBOL) \
  FUNCTION(open)                                     \
  FUNCTION(open64)                                   \
  FUNCTION(openat)                                   \
  FUNCTION(openat64)                                 \
  FUNCTION(creat)                                    \
  FUNCTION(creat64)                                  \
  FUNCTION(dup)                                      \
  FUNCTION(dup2)                                     \
  FUNCTION(dup3)                                     \
  FUNCTION(fcntl)                                    \
  FUNCTION(pipe)                                     \
  FUNCTION(pipe2)                                    \
  FUNCTION(socket)                                   \
  FUNCTION(socketpair)                               \
  FUNCTION(accept)                                   \
  FUNCTION(accept4)                                  \
  FUNCTION(eventfd)                                  \
  FUNCTION(signalfd)                                 \
  FUNCTION(timerfd_create)                           \
  FUNCTION(epoll_create)                             \
  FUNCTION(epoll_create1)                            \
  FUNCTION(inotify_init)                             \
  FUNCTION(inotify_init1)                            \
  FUNCTION(memfd_create)                             \
  FUNCTION(posix_openpt)                             \
  FUNCTION(getpt)                                    \
  FUNCTION(close_range)                              \
  FUNCTION(fopen)                                    \
  FUNCTION(fopen64)                                  \
  FUNCTION(fdopen)                                   \
  FUNCTION(freopen)                                  \
  FUNCTION(freopen64)                                \
  FUNCTION(tmpfile)                                  \
  FUNCTION(tmpfile64)                                \
  FUNCTION(popen)                                    \
  FUNCTION(fmemopen)                                 \
  FUNCTION(open_memstream)                           \
  FUNCTION(fclose)                                   \
  FUNCTION(pclose)                                   \
  FUNCTION(fcloseall)                                \
  FUNCTION(close)
RTRACE_REAL_FUNCTIONS(RealFileFunctions, RTRACE_FILE_REAL_FUNCTIONS);

extern RealFileFunctions g_file_real;
extern std::uint32_t g_fd_resource;
extern std::uint32_t g_fp_resource;

struct FileModule;  // the module's tag for ModuleStart and OwnGuard
extern ModuleStart<FileModule> g_file_start;
using FileGuard = OwnGuard<FileModule>;

// True when the wrappers can call g_file_real. Waits while another thread is finding the real
// functions; false only on the thread that is finding them (a call made by dlsym itself): the
// wrapper then does without (a system call, or fails with ENOSYS).
bool file_module_ready();

inline bool file_tracing_now() {
  return tracing_now<FileModule>();
}

// What a descriptor is, as far as the module saw it created: the `$type` argument of the dup
// family. A descriptor the module never saw created (stdin, inherited ones) is "(unknown)".
enum class FdKind : std::uint8_t {
  Unknown,
  File,
  Socket,
  Pipe,
  EventFd,
  SignalFd,
  TimerFd,
  Epoll,
  Inotify,
  MemFd,
  Terminal
};
void remember_fd(int fd, FdKind kind);
// Every descriptor of [first, last] closed: "(unknown)" again.
void forget_fds(unsigned int first, unsigned int last);
FdKind fd_kind(int fd);
const char* fd_kind_name(FdKind kind);

// An allocation of a descriptor or a stream (size 1, as the original), recorded after the real
// call returned it.
inline void record_fd(const char* name, int fd, const void* return_address,
                      const RtraceArg* args = nullptr, std::uint32_t arg_count = 0) {
  record_allocation(g_fd_resource, name, 1, static_cast<std::uint64_t>(fd), return_address, args,
                    arg_count);
}

// The same with `$path` and `$<value_name>` (hex), which the drain formats (rtrace_record_path):
// open, creat and their relatives.
inline void record_fd_path(const char* name, int fd, const char* path, const char* value_name,
                           unsigned int value, const void* return_address) {
  const RtraceCall call{
      g_fd_resource, sprtrace::kCallAlloc, name, 1, static_cast<std::uint64_t>(fd), nullptr, 0};
  rtrace_record_path(&call, path, value_name, value, return_address);
}

inline void record_stream(const char* name, const FILE* stream, const void* return_address,
                          const RtraceArg* args = nullptr, std::uint32_t arg_count = 0) {
  record_allocation(g_fp_resource, name, 1, reinterpret_cast<std::uintptr_t>(stream),
                    return_address, args, arg_count);
}

// The release of descriptor `fd` (see ReleaseRecorder).
class FdRelease : public ReleaseRecorder {
 public:
  FdRelease(const char* name, int fd, const void* return_address)
      : ReleaseRecorder(g_fd_resource, name, static_cast<std::uint64_t>(fd), return_address) {}
};

// The release of stream `stream`.
class StreamRelease : public ReleaseRecorder {
 public:
  StreamRelease(const char* name, std::uint64_t stream, const void* return_address)
      : ReleaseRecorder(g_fp_resource, name, stream, return_address) {}
};

// "0x<hex>" of `value` into `out` (at least 11 bytes), as the original's "0x%x".
void format_hex(char* out, unsigned int value);
// The decimal of `value` into `out` (at least 12 bytes), as the original's "%d".
void format_int(char* out, int value);

}  // namespace rtrace::tracer
