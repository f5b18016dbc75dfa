// What the tracer reads about its own process from /proc: the command line (at the start of a
// session) and the resident set size (at its end). The end may be a signal handler (_exit, a
// crash), so everything here is async-signal-safe: raw open/read/close system calls (never the
// program's or another module's wrappers), fixed buffers, no allocation, no locks, no stdio.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rtrace::tracer {

// The arguments of a command line file (/proc/PID/cmdline: each argument followed by a NUL)
// that fit whole in `buffer`. Returns their bytes (the NULs included); `cut` is set when
// arguments were left out. 0 when the file cannot be read.
std::size_t read_arguments(const char* path, char* buffer, std::size_t capacity, bool& cut);

struct ResidentSet {
  std::uint64_t peak_bytes = 0;     // VmHWM
  std::uint64_t current_bytes = 0;  // VmRSS
};

// VmHWM and VmRSS of a status file (/proc/PID/status); 0 for what it does not hold.
ResidentSet read_resident_set(const char* path);

}  // namespace rtrace::tracer
