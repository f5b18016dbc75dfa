// librtrace-file.so: traces file descriptors and FILE streams as the original's file module
// does. This file holds the module's set-up (its real functions, its registration) and what the
// wrappers share; the wrappers are in file_descriptors.cpp and file_streams.cpp.
#include <atomic>

#include "tracer/core/decimal.h"
#include "tracer/modules/file/file_tracing.h"

namespace rtrace::tracer {

constinit RealFileFunctions g_file_real;
std::uint32_t g_fd_resource = 1;
std::uint32_t g_fp_resource = 2;

namespace {

bool resolve_file_functions() {
  RealFileFunctions& r = g_file_real;
  r.find_all();
  return r.close != nullptr;
}

// The original registers the file module twice (its traces list `[1] file (1.0)` and
// `[2] file (1.0)`), then its two resource types.
void register_file_module() {
  rtrace_register_module("file", 1, 0);
  rtrace_register_module("file", 1, 0);
  g_fd_resource = rtrace_register_resource("fd", "file descriptor", 0);
  g_fp_resource = rtrace_register_resource("fp", "file pointer", 0);
  rtrace_module_ready();
}

// The kind of every descriptor below kTrackedFds (higher ones are "(unknown)"): one byte each,
// written by the thread that created or released the descriptor.
constexpr int kTrackedFds = 1 << 16;
std::atomic<FdKind> g_fd_kinds[kTrackedFds];

}  // namespace

constinit ModuleStart<FileModule> g_file_start{resolve_file_functions, register_file_module};

bool file_module_ready() {
  return g_file_start.ready_or_wait();
}

void remember_fd(int fd, FdKind kind) {
  if (fd >= 0 && fd < kTrackedFds) {
    g_fd_kinds[fd].store(kind, std::memory_order_relaxed);
  }
}

void forget_fds(unsigned int first, unsigned int last) {
  const unsigned int end = last < kTrackedFds ? last + 1 : kTrackedFds;
  for (unsigned int fd = first; fd < end; ++fd) {
    g_fd_kinds[fd].store(FdKind::Unknown, std::memory_order_relaxed);
  }
}

FdKind fd_kind(int fd) {
  return fd >= 0 && fd < kTrackedFds ? g_fd_kinds[fd].load(std::memory_order_relaxed)
                                     : FdKind::Unknown;
}

const char* fd_kind_name(FdKind kind) {
  switch (kind) {
    case FdKind::File:
      return "file";
    case FdKind::Socket:
      return "socket";
    case FdKind::Pipe:
      return "pipe";
    case FdKind::EventFd:
      return "eventfd";
    case FdKind::SignalFd:
      return "signalfd";
    case FdKind::TimerFd:
      return "timerfd";
    case FdKind::Epoll:
      return "epoll";
    case FdKind::Inotify:
      return "inotify";
    case FdKind::MemFd:
      return "memfd";
    case FdKind::Terminal:
      return "terminal";
    case FdKind::Unknown:
      break;
  }
  return "(unknown)";
}

void format_hex(char* out, unsigned int value) {
  *write_hex(out, value) = '\0';
}

void format_int(char* out, int value) {
  std::uint64_t magnitude = static_cast<std::uint64_t>(value);
  if (value < 0) {
    *out++ = '-';
    magnitude = 0 - static_cast<std::uint64_t>(static_cast<std::int64_t>(value));
  }
  *write_decimal(out, magnitude) = '\0';
}

}  // namespace rtrace::tracer

// The session registers the preloaded modules in LD_PRELOAD order (module_order.h).
extern "C" RTRACE_EXPORT void rtrace_module_register() {
  rtrace::tracer::g_file_start.register_in_order();
}

namespace {

// Usually a no-op: the first descriptor call of the process set the module up already.
__attribute__((constructor)) void file_module_init() {
  rtrace::tracer::g_file_start.finish_registration();
}

}  // namespace
