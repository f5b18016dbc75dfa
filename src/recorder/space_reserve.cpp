#include "recorder/space_reserve.h"

#include <fcntl.h>
#include <unistd.h>

namespace rtrace::recorder {

SpaceReserve::SpaceReserve(const std::string& directory, long bytes) {
  fd_ = ::open(directory.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd_ >= 0 && ::posix_fallocate(fd_, 0, bytes) != 0) {
    release();
  }
}

SpaceReserve::~SpaceReserve() {
  release();
}

void SpaceReserve::release() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

}  // namespace rtrace::recorder
