#include "io/byte_source.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace rtrace {

FdSource::~FdSource() {
  if (owned_) {
    ::close(fd_);
  }
}

std::size_t FdSource::read(std::span<std::uint8_t> buffer) {
  for (;;) {
    const ssize_t n = ::read(fd_, buffer.data(), buffer.size());
    if (n >= 0) {
      return static_cast<std::size_t>(n);
    }
    if (errno != EINTR) {
      throw std::runtime_error(name_ + ": cannot read: " + std::strerror(errno));
    }
  }
}

std::size_t PrefixedSource::read(std::span<std::uint8_t> buffer) {
  if (prefix_used_ < prefix_.size()) {
    const std::size_t n = std::min(buffer.size(), prefix_.size() - prefix_used_);
    std::memcpy(buffer.data(), prefix_.data() + prefix_used_, n);
    prefix_used_ += n;
    return n;
  }
  return rest_->read(buffer);
}

}  // namespace rtrace
