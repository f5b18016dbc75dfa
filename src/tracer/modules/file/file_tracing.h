// What the file module's descriptor wrappers (file_descriptors.cpp) and stream wrappers
// (file_streams.cpp) share: the real functions, the module's start and guard, the two resource
// types the original registers (`fd (file descriptor)`, `fp (file pointer)`), the record helpers
// bound to them and the kind of each descriptor (the `$type` argument of dup's records).
#pragma once

#include <signal.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <cstdint>

#include "tracer/api/module_sdk.h"

namespace rtrace::tracer {

// The functions the wrappers call: the next definition after librtrace-file.so (find_real), so
// that a module preloaded later that wraps the same function (shmposix's close) still sees it.
struct RealFileFunctions {
  int (*open)(const char*, int, ...) = nullptr;
  int (*open64)(const char*, int, ...) = nullptr;
  int (*openat)(int, const char*, int, ...) = nullptr;
  int (*openat64)(int, const char*, int, ...) = nullptr;
  int (*creat)(const char*, mode_t) = nullptr;
  int (*creat64)(const char*, mode_t) = nullptr;
  int (*close)(int) = nullptr;
  int (*dup)(int) = nullptr;
  int (*dup2)(int, int) = nullptr;
  int (*dup3)(int, int, int) = nullptr;
  int (*fcntl)(int, int, ...) = nullptr;
  int (*pipe)(int*) = nullptr;
  int (*pipe2)(int*, int) = nullptr;
  int (*socket)(int, int, int) = nullptr;
  int (*socketpair)(int, int, int, int*) = nullptr;
  int (*accept)(int, sockaddr*, socklen_t*) = nullptr;
  int (*accept4)(int, sockaddr*, socklen_t*, int) = nullptr;
  int (*eventfd)(unsigned int, int) = nullptr;
  int (*signalfd)(int, const sigset_t*, int) = nullptr;
  int (*timerfd_create)(int, int) = nullptr;
  int (*epoll_create)(int) = nullptr;
  int (*epoll_create1)(int) = nullptr;
  int (*inotify_init)() = nullptr;
  int (*inotify_init1)(int) = nullptr;
  int (*memfd_create)(const char*, unsigned int) = nullptr;
  int (*posix_openpt)(int) = nullptr;
  int (*getpt)() = nullptr;
  int (*close_range)(unsigned int, unsigned int, int) = nullptr;
  FILE* (*fopen)(const char*, const char*) = nullptr;
  FILE* (*fopen64)(const char*, const char*) = nullptr;
  FILE* (*fdopen)(int, const char*) = nullptr;
  FILE* (*freopen)(const char*, const char*, FILE*) = nullptr;
  FILE* (*freopen64)(const char*, const char*, FILE*) = nullptr;
  FILE* (*tmpfile)() = nullptr;
  FILE* (*tmpfile64)() = nullptr;
  FILE* (*popen)(const char*, const char*) = nullptr;
  FILE* (*fmemopen)(void*, std::size_t, const char*) = nullptr;
  FILE* (*open_memstream)(char**, std::size_t*) = nullptr;
  int (*fclose)(FILE*) = nullptr;
  int (*pclose)(FILE*) = nullptr;
  int (*fcloseall)() = nullptr;
};

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
