#include "tracer/core/environment.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "tracer/core/decimal.h"

namespace rtrace::tracer {
namespace {

// "NAME=" at the start of `entry`: the value after it, or null.
char* value_of(char* entry, const char* name) {
  const std::size_t length = std::strlen(name);
  if (std::strncmp(entry, name, length) == 0 && entry[length] == '=') {
    return entry + length + 1;
  }
  return nullptr;
}

char* find_value(const char* name) {
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    if (char* value = value_of(*entry, name)) {
      return value;
    }
  }
  return nullptr;
}

// The pid written in a value, 0 for the unclaimed run of zeros (or anything unreadable).
std::uint64_t pid_in(const char* value) {
  std::uint64_t pid = 0;
  for (const char* p = value; *p >= '0' && *p <= '9'; ++p) {
    pid = pid * 10 + static_cast<std::uint64_t>(*p - '0');
  }
  return pid;
}

// Writes `pid` over the zeros, right-aligned, keeping the width.
void write_pid_in_place(char* value, pid_t pid) {
  const std::size_t width = std::strlen(value);
  char digits[24];
  const std::size_t count =
      static_cast<std::size_t>(write_decimal(digits, static_cast<std::uint64_t>(pid)) - digits);
  if (count <= width) {
    std::memcpy(value + width - count, digits, count);
  }
}

// Adds "RTRACE_ROOT_PID=<pid>" to the environment as a new array (the old one may be on the stack
// and has no room). Static storage for usual environments, an anonymous mapping for huge ones.
void add_root_variable(pid_t pid) {
  static char entry[sizeof kRootPidVariable + 24];
  char* end = entry;
  std::memcpy(end, kRootPidVariable, sizeof kRootPidVariable - 1);
  end += sizeof kRootPidVariable - 1;
  *end++ = '=';
  *write_decimal(end, static_cast<std::uint64_t>(pid)) = '\0';

  std::size_t count = 0;
  while (environ != nullptr && environ[count] != nullptr) {
    ++count;
  }
  static char* small[512];
  char** array = small;
  if (count + 2 > sizeof small / sizeof small[0]) {
    void* mapped = ::mmap(nullptr, (count + 2) * sizeof(char*), PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) {
      return;
    }
    array = static_cast<char**>(mapped);
  }
  for (std::size_t i = 0; i < count; ++i) {
    array[i] = environ[i];
  }
  array[count] = entry;
  array[count + 1] = nullptr;
  environ = array;
}

}  // namespace

const char* environment_value(const char* name) {
  return find_value(name);
}

bool claim_root_process(pid_t pid) {
  char* value = find_value(kRootPidVariable);
  if (value == nullptr) {
    add_root_variable(pid);
    return true;
  }
  const std::uint64_t root = pid_in(value);
  if (root == 0) {
    write_pid_in_place(value, pid);
    return true;
  }
  return root == static_cast<std::uint64_t>(pid);
}

}  // namespace rtrace::tracer
