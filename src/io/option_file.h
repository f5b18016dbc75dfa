// Small files named by options (call index lists, suppression lists), read whole.
//
// An option file must be a regular file (or a pipe or device, as in --include <(...)), not a
// directory, and at most kMaxOptionFile bytes: a list larger than that is a mistake
// (--include /dev/zero), refused before it fills the memory. "-" is standard input, read once:
// the list is kept for the next read of "-" in the same process.
#pragma once

#include <cstddef>
#include <string>

namespace rtrace {

inline constexpr std::size_t kMaxOptionFile = std::size_t{64} << 20;

// The contents of `path`. Throws std::runtime_error naming the file when it cannot be read, is a
// directory, or is larger than `max_size`.
std::string read_option_file(const std::string& path, std::size_t max_size = kMaxOptionFile);

}  // namespace rtrace
