#include "tracer/core/proc_self.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace rtrace::tracer {
namespace {

int open_for_reading(const char* path) {
  for (;;) {
    const long fd = ::syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0 || errno != EINTR) {
      return static_cast<int>(fd);
    }
  }
}

long read_some(int fd, char* buffer, std::size_t size) {
  for (;;) {
    const long got = ::syscall(SYS_read, fd, buffer, size);
    if (got >= 0 || errno != EINTR) {
      return got;
    }
  }
}

// Fills `buffer` from `fd` (proc files may come in several reads); returns the bytes read and
// whether the end of the file was reached.
std::size_t read_up_to(int fd, char* buffer, std::size_t capacity, bool& at_end) {
  std::size_t used = 0;
  at_end = false;
  while (used < capacity) {
    const long got = read_some(fd, buffer + used, capacity - used);
    if (got <= 0) {
      at_end = true;
      break;
    }
    used += static_cast<std::size_t>(got);
  }
  if (!at_end) {
    char probe = 0;
    at_end = read_some(fd, &probe, 1) <= 0;
  }
  return used;
}

// The kB value of a status line `<key>:<spaces><digits> kB`, when `line` is that key's.
bool kilobytes_of(const char* line, std::size_t length, const char* key, std::uint64_t& bytes) {
  std::size_t at = 0;
  for (; key[at] != '\0'; ++at) {
    if (at >= length || line[at] != key[at]) {
      return false;
    }
  }
  while (at < length && (line[at] == ' ' || line[at] == '\t')) {
    ++at;
  }
  std::uint64_t value = 0;
  const std::size_t first_digit = at;
  for (; at < length && line[at] >= '0' && line[at] <= '9'; ++at) {
    value = value * 10 + static_cast<std::uint64_t>(line[at] - '0');
  }
  if (at == first_digit) {
    return false;
  }
  bytes = value * 1024;
  return true;
}

}  // namespace

std::size_t read_arguments(const char* path, char* buffer, std::size_t capacity, bool& cut) {
  cut = false;
  const int fd = open_for_reading(path);
  if (fd < 0) {
    return 0;
  }
  bool at_end = false;
  std::size_t used = read_up_to(fd, buffer, capacity, at_end);
  ::syscall(SYS_close, fd);
  // Keep whole arguments only: back up to the NUL that ends the last complete one.
  if (!at_end || (used > 0 && buffer[used - 1] != '\0')) {
    cut = true;
    while (used > 0 && buffer[used - 1] != '\0') {
      --used;
    }
  }
  return used;
}

ResidentSet read_resident_set(const char* path) {
  ResidentSet result;
  const int fd = open_for_reading(path);
  if (fd < 0) {
    return result;
  }
  // Line by line through a small window; only the start of each line matters (the long lines,
  // Groups: and the like, are not the ones we want).
  char chunk[512];
  char line[64];
  std::size_t line_length = 0;
  for (;;) {
    const long got = read_some(fd, chunk, sizeof chunk);
    if (got <= 0) {
      break;
    }
    for (long i = 0; i < got; ++i) {
      if (chunk[i] != '\n') {
        if (line_length < sizeof line) {
          line[line_length++] = chunk[i];
        }
        continue;
      }
      kilobytes_of(line, line_length, "VmHWM:", result.peak_bytes);
      kilobytes_of(line, line_length, "VmRSS:", result.current_bytes);
      line_length = 0;
    }
  }
  ::syscall(SYS_close, fd);
  return result;
}

}  // namespace rtrace::tracer
