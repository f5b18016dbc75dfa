// librtrace-file.so: close_range, which closes every open descriptor of a range at once (and
// closefrom, which librtrace-main.so turns into close_range around the trace connection). The
// original's file module predates them; without these wrappers a program that closes its
// descriptors this way (daemons, spawners) would show every one of them as leaked.
//
// Each open descriptor of the range becomes a release named after the function, in ascending
// order, made through the next `close` definition (so that a module preloaded after this one that
// wraps close, shmposix, still sees it). Which descriptors are open is read from /proc/self/fd
// (with an fcntl scan when /proc is not mounted); CLOSE_RANGE_CLOEXEC closes nothing and records
// nothing; CLOSE_RANGE_UNSHARE unshares the table first, as the kernel does.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <climits>

#include "tracer/modules/file/file_tracing.h"

using rtrace::tracer::FdKind;
using rtrace::tracer::FdRelease;
using rtrace::tracer::file_module_ready;
using rtrace::tracer::file_tracing_now;
using rtrace::tracer::FileGuard;
using rtrace::tracer::forget_fds;
using rtrace::tracer::g_file_real;
using rtrace::tracer::remember_fd;

namespace {

// Descriptors are found and closed in batches of this many: no allocation, bounded stack.
constexpr std::size_t kBatch = 128;

struct DescriptorBatch {
  int fds[kBatch];
  std::size_t count = 0;
  bool more = false;  // the batch filled up: the range may hold more open descriptors
};

void add(DescriptorBatch& batch, unsigned int fd, unsigned int first, unsigned int last) {
  if (fd < first || fd > last) {
    return;
  }
  if (batch.count == kBatch) {
    batch.more = true;
    return;
  }
  batch.fds[batch.count++] = static_cast<int>(fd);
}

// The decimal name of a /proc/self/fd entry; false for "." and "..".
bool parse_descriptor(const char* name, unsigned int& fd) {
  if (*name < '0' || *name > '9') {
    return false;
  }
  unsigned long value = 0;
  for (; *name >= '0' && *name <= '9'; ++name) {
    value = value * 10 + static_cast<unsigned long>(*name - '0');
    if (value > INT_MAX) {
      return false;
    }
  }
  fd = static_cast<unsigned int>(value);
  return *name == '\0';
}

// Up to kBatch of the lowest open descriptors in [first, last], from /proc/self/fd read with
// raw system calls (the program's opendir may be traced, and must not see ours). False when
// /proc cannot be read.
bool list_from_proc(unsigned int first, unsigned int last, DescriptorBatch& batch) {
  const int directory = static_cast<int>(
      ::syscall(SYS_openat, AT_FDCWD, "/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (directory < 0) {
    return false;
  }
  alignas(8) char buffer[4096];
  for (;;) {
    const long length = ::syscall(SYS_getdents64, directory, buffer, sizeof buffer);
    if (length <= 0) {
      break;
    }
    for (long offset = 0; offset < length;) {
      const auto* entry = reinterpret_cast<const dirent64*>(buffer + offset);
      unsigned int fd = 0;
      if (parse_descriptor(entry->d_name, fd) && fd != static_cast<unsigned int>(directory)) {
        add(batch, fd, first, last);
      }
      offset += entry->d_reclen;
    }
  }
  ::syscall(SYS_close, directory);
  return true;
}

// Without /proc: every number of the range below the descriptor limit, asked one by one.
void list_by_fcntl(unsigned int first, unsigned int last, DescriptorBatch& batch) {
  rlimit limit{};
  unsigned long end = 1024;
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    end = std::min<unsigned long>(limit.rlim_cur, INT_MAX);
  }
  for (unsigned long fd = first; fd <= last && fd < end && !batch.more; ++fd) {
    if (::syscall(SYS_fcntl, static_cast<int>(fd), F_GETFD) >= 0) {
      add(batch, static_cast<unsigned int>(fd), first, last);
    }
  }
}

DescriptorBatch open_descriptors(unsigned int first, unsigned int last) {
  DescriptorBatch batch;
  if (!list_from_proc(first, last, batch)) {
    list_by_fcntl(first, last, batch);
  }
  std::sort(batch.fds, batch.fds + batch.count);
  return batch;
}

// Closes one descriptor of the range through the next close, recording its release.
void close_recorded(const char* name, int fd, const void* return_address) {
  FdRelease release(name, fd, return_address);
  FileGuard guard;
  if (g_file_real.close(fd) == 0) {
    remember_fd(fd, FdKind::Unknown);
    release.commit();
  } else {
    release.cancel();
  }
}

// Closes every open descriptor of [first, last], batch after batch (each batch starts again at
// the lowest still open, so descriptors opened meanwhile by other threads are closed too, as the
// kernel's own walk would).
void close_range_recorded(const char* name, unsigned int first, unsigned int last,
                          const void* return_address) {
  for (;;) {
    const DescriptorBatch batch = open_descriptors(first, last);
    for (std::size_t i = 0; i < batch.count; ++i) {
      close_recorded(name, batch.fds[i], return_address);
    }
    if (!batch.more) {
      return;
    }
    first = static_cast<unsigned int>(batch.fds[batch.count - 1]) + 1;
  }
}

}  // namespace

extern "C" {

RTRACE_EXPORT int close_range(unsigned int first, unsigned int last, int flags) {
  if (!file_module_ready()) {
    return static_cast<int>(::syscall(SYS_close_range, first, last, flags));
  }
  if ((flags & CLOSE_RANGE_CLOEXEC) != 0 || first > last) {
    return g_file_real.close_range(first, last, flags);
  }
  if (!file_tracing_now()) {
    const int result = g_file_real.close_range(first, last, flags);
    if (result == 0) {
      forget_fds(first, last);
    }
    return result;
  }
  if ((flags & CLOSE_RANGE_UNSHARE) != 0) {
    // An empty range: the kernel unshares the table and closes nothing.
    if (g_file_real.close_range(~0U, ~0U, CLOSE_RANGE_UNSHARE) != 0) {
      return -1;
    }
  }
  close_range_recorded("close_range", first, last, __builtin_return_address(0));
  return 0;
}
}
