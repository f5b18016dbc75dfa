#include "recorder/trace_handler.h"

#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace rtrace::recorder {

std::size_t read_some(int fd, std::uint8_t* data, std::size_t size) {
  for (;;) {
    const ssize_t n = ::read(fd, data, size);
    if (n >= 0) {
      return static_cast<std::size_t>(n);
    }
    if (errno != EINTR) {
      throw std::runtime_error(std::string("reading a trace connection: ") + std::strerror(errno));
    }
  }
}

void drain(int fd) {
  std::array<std::uint8_t, 16384> buffer{};
  try {
    while (read_some(fd, buffer.data(), buffer.size()) > 0) {
    }
  } catch (const std::runtime_error&) {  // NOLINT(bugprone-empty-catch): nothing left to read
  }
}

}  // namespace rtrace::recorder
