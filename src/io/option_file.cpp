#include "io/option_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace rtrace {
namespace {

std::runtime_error file_error(const std::string& path, const std::string& what) {
  return std::runtime_error(path + ": " + what);
}

}  // namespace

std::string read_option_file(const std::string& path, std::size_t max_size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw file_error(path, std::strerror(errno));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } const closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    throw file_error(path, "is a directory, not a file");
  }
  std::string text;
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      throw file_error(path, std::string("cannot read: ") + std::strerror(errno));
    }
    if (n == 0) {
      return text;
    }
    if (text.size() + static_cast<std::size_t>(n) > max_size) {
      throw file_error(path,
                       fmt::format("larger than {} bytes; not a list an option takes", max_size));
    }
    text.append(chunk, static_cast<std::size_t>(n));
  }
}

}  // namespace rtrace
