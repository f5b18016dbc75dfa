#include "io/option_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "io/standard_stream.h"

namespace rtrace {
namespace {

std::runtime_error file_error(const std::string& path, const std::string& what) {
  return std::runtime_error(path + ": " + what);
}

std::string read_all(int fd, const std::string& path, std::size_t max_size) {
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

// Standard input can be read only once, and a command may open its option file more than once
// (its stages are checked before they run): the list read from it is kept.
std::string read_standard_input(const std::string& path, std::size_t max_size) {
  static std::mutex mutex;
  static std::optional<std::string> text;
  const std::lock_guard<std::mutex> lock(mutex);
  if (!text) {
    text = read_all(STDIN_FILENO, path, max_size);
  }
  if (text->size() > max_size) {
    throw file_error(path,
                     fmt::format("larger than {} bytes; not a list an option takes", max_size));
  }
  return *text;
}

}  // namespace

std::string read_option_file(const std::string& path, std::size_t max_size) {
  if (names_standard_stream(path)) {
    return read_standard_input(path, max_size);
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw file_error(path, std::strerror(errno));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } const closer{fd};
  return read_all(fd, path, max_size);
}

}  // namespace rtrace
