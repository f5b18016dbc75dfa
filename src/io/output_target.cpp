#include "io/output_target.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "io/standard_stream.h"

namespace rtrace {
namespace {

std::runtime_error refusal(const std::string& path, const std::string& why) {
  return std::runtime_error(path + ": " + why);
}

bool same_inode(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// Whether `target` is one of `inputs` ("-" and "" are standard input).
bool is_an_input(const struct stat& target, const std::vector<std::string>& inputs) {
  for (const std::string& input : inputs) {
    struct stat st {};
    const bool known = input.empty() || names_standard_stream(input)
                           ? ::fstat(STDIN_FILENO, &st) == 0
                           : ::stat(input.c_str(), &st) == 0;
    if (known && same_inode(target, st)) {
      return true;
    }
  }
  return false;
}

bool is_our_stdout(const struct stat& target) {
  struct stat st {};
  return ::fstat(STDOUT_FILENO, &st) == 0 && same_inode(target, st);
}

// Closes a descriptor when it goes out of scope, unless released.
class FdGuard {
 public:
  explicit FdGuard(int fd) : fd_(fd) {}
  ~FdGuard() {
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }
  FdGuard(const FdGuard&) = delete;
  FdGuard& operator=(const FdGuard&) = delete;
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

// The file a symbolic link leads to, checked to be the one we opened (a link changed in between
// is refused rather than replacing something else).
std::string link_target(const std::string& path, const struct stat& opened) {
  char resolved[PATH_MAX];
  struct stat st {};
  if (::realpath(path.c_str(), resolved) == nullptr || ::stat(resolved, &st) != 0 ||
      !same_inode(st, opened)) {
    throw refusal(path, "symbolic link changed while it was being opened");
  }
  return resolved;
}

OutputTarget regular_file_target(const std::string& path, bool is_link, const struct stat& st,
                                 const std::vector<std::string>& inputs) {
  OutputTarget target;
  if (is_our_stdout(st)) {
    target.kind = OutputTarget::Kind::Direct;
    target.fd = STDOUT_FILENO;
    return target;
  }
  if (is_an_input(st, inputs)) {
    throw refusal(path, "is also an input; refusing to overwrite it");
  }
  if ((st.st_mode & 0222) == 0) {
    throw refusal(path, "is read-only; refusing to replace it");
  }
  target.kind = OutputTarget::Kind::ReplaceFile;
  target.path = is_link ? link_target(path, st) : path;
  target.existing = st;
  return target;
}

}  // namespace

OutputTarget resolve_output_target(const std::string& path,
                                   const std::vector<std::string>& inputs) {
  if (names_standard_stream(path)) {
    OutputTarget target;
    target.kind = OutputTarget::Kind::Direct;
    target.fd = STDOUT_FILENO;
    return target;
  }
  struct stat link {};
  const bool exists = ::lstat(path.c_str(), &link) == 0;
  const bool is_link = exists && S_ISLNK(link.st_mode);
  if (is_link && link.st_uid != ::geteuid() && link.st_uid != 0) {
    throw refusal(path, "is a symbolic link owned by another user; refusing to follow it");
  }

  // Opening for writing (without creating or truncating) asks the system the shell's question:
  // may this user write here? It also follows a link exactly as the kernel allows.
  const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT && !exists) {
      OutputTarget target;
      target.path = path;  // Kind::NewFile
      return target;
    }
    if (errno == ENOENT) {
      throw refusal(path,
                    "is a symbolic link to a file that does not exist; refusing to create "
                    "it through the link");
    }
    if (errno == EACCES || errno == EPERM || errno == EROFS) {
      throw refusal(path, std::string("cannot be written (") + std::strerror(errno) +
                              "); refusing to replace it");
    }
    throw refusal(path, std::strerror(errno));
  }
  FdGuard guard(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    throw refusal(path, std::strerror(errno));
  }
  if (S_ISREG(st.st_mode)) {
    return regular_file_target(path, is_link, st, inputs);  // the guard closes `fd`
  }
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
    OutputTarget target;
    target.kind = OutputTarget::Kind::Direct;
    target.fd = guard.release();
    target.owns_fd = true;
    return target;
  }
  throw refusal(path,
                "is neither a regular file, a character device nor a FIFO; refusing to "
                "write into it");
}

}  // namespace rtrace
