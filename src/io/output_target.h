// What writing to a path the user named with -o means, decided before anything is written.
//
//  - A path that does not exist: a new regular file (written under a temporary name, renamed in).
//  - An existing regular file: replaced by a complete new file that keeps its mode (and, where
//    the system allows, owner and group); refused when it is not writable (as the shell would
//    refuse), when it has no write permission at all (even for root), or when it is one of our
//    inputs (same device and inode; "-" is standard input).
//  - An existing character device or FIFO (/dev/null, a terminal, a named pipe): written directly,
//    never replaced. Other kinds of file (block devices, sockets, directories) are refused.
//  - "-" (standard_stream.h), and the file our standard output already is (e.g. -o /dev/stdout):
//    standard output itself.
//  - A symbolic link is followed on purpose, and what it points to is written as above (the link
//    stays), but only a link that belongs to the user or to root: a link someone else planted in
//    a shared directory is refused, as is a link to a file that does not exist.
#pragma once

#include <sys/stat.h>

#include <string>
#include <vector>

namespace rtrace {

struct OutputTarget {
  enum class Kind { NewFile, ReplaceFile, Direct };
  Kind kind = Kind::NewFile;
  // NewFile, ReplaceFile: the file to create or replace (a link's target, for a link).
  std::string path;
  // ReplaceFile: the file being replaced (its mode, owner and group are kept).
  struct stat existing {};
  // Direct: the open descriptor to write to, and whether it is ours to close.
  int fd = -1;
  bool owns_fd = false;
};

// Throws std::runtime_error naming `path` when it must not be written.
OutputTarget resolve_output_target(const std::string& path, const std::vector<std::string>& inputs);

}  // namespace rtrace
