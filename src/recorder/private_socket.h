// The listening socket traced processes connect to.
//
// It lives in a directory made by mkdtemp (mode 0700, an unguessable name) under $TMPDIR or /tmp,
// and bind() creates it, so it is never reached through someone else's file or symlink, and only
// our own user can connect. Both go away with the object.
#pragma once

#include <string>

namespace rtrace::recorder {

class PrivateSocket {
 public:
  // Throws std::runtime_error when the directory or socket cannot be made.
  PrivateSocket();
  PrivateSocket(const PrivateSocket&) = delete;
  PrivateSocket& operator=(const PrivateSocket&) = delete;
  ~PrivateSocket();

  // Non-blocking, close-on-exec.
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  const std::string& directory() const { return directory_; }

 private:
  int fd_ = -1;
  std::string directory_;
  std::string path_;
};

}  // namespace rtrace::recorder
