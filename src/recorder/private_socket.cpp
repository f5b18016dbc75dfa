#include "recorder/private_socket.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace rtrace::recorder {
namespace {

constexpr const char* kSocketName = "/socket";

std::runtime_error system_error(const std::string& what) {
  return std::runtime_error(what + ": " + std::strerror(errno));
}

// $TMPDIR when the socket path made there fits a sockaddr_un, else /tmp.
std::string temporary_root() {
  const char* tmpdir = std::getenv("TMPDIR");
  const std::size_t fits = sizeof(sockaddr_un::sun_path) - sizeof("/rtrace-XXXXXX/socket");
  if (tmpdir != nullptr && *tmpdir == '/' && std::strlen(tmpdir) < fits) {
    return tmpdir;
  }
  return "/tmp";
}

}  // namespace

PrivateSocket::PrivateSocket() {
  std::string pattern = temporary_root() + "/rtrace-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw system_error(pattern);
  }
  directory_ = pattern;
  path_ = directory_ + kSocketName;

  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path_.c_str(), path_.size() + 1);

  fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd_ < 0 || ::bind(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0 ||
      ::listen(fd_, SOMAXCONN) != 0) {
    const std::runtime_error error = system_error(path_);
    if (fd_ >= 0) {
      ::close(fd_);
    }
    ::unlink(path_.c_str());
    ::rmdir(directory_.c_str());
    throw error;
  }
}

PrivateSocket::~PrivateSocket() {
  ::close(fd_);
  ::unlink(path_.c_str());
  ::rmdir(directory_.c_str());
}

}  // namespace rtrace::recorder
