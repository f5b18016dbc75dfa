#include "io/output_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "io/output_target.h"
#include "io/temporary_cleanup.h"

namespace rtrace {
namespace {

std::runtime_error system_error(const std::string& what) {
  return std::runtime_error(what + ": " + std::strerror(errno));
}

mode_t current_umask() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

}  // namespace

OutputStream::OutputStream() {
  buffer_.reserve(kFlushAt + 4096);
}

OutputStream::OutputStream(const std::string& path, const std::vector<std::string>& inputs)
    : path_(path) {
  const OutputTarget target = resolve_output_target(path, inputs);
  if (target.kind == OutputTarget::Kind::Direct) {
    fd_ = target.fd;
    owns_fd_ = target.owns_fd;
    buffer_.reserve(kFlushAt + 4096);
    return;
  }
  open_temporary(target.path);
  if (target.kind == OutputTarget::Kind::ReplaceFile) {
    // Owner and group first (this clears set-id bits), then the old mode. Only root may give a
    // file away; anybody else's replacement stays theirs, as with any editor that renames.
    const struct stat& old = target.existing;
    if (::fchown(fd_, old.st_uid, old.st_gid) != 0) {
      // The group alone, when we belong to it; when that fails too, the file stays ours. (A
      // variable, not a (void) cast: with _FORTIFY_SOURCE, as Debian builds, fchown's result
      // must not be discarded.)
      [[maybe_unused]] const int group_kept = ::fchown(fd_, static_cast<uid_t>(-1), old.st_gid);
    }
    ::fchmod(fd_, old.st_mode & 07777);
  }
  path_ = target.path;
}

OutputStream::OutputStream(InDirectory /*unused*/, const std::string& directory)
    : directory_(directory) {
  open_temporary(directory + "/.rtrace");
}

OutputStream OutputStream::in_directory(const std::string& directory) {
  return OutputStream(InDirectory{}, directory);
}

OutputStream::OutputStream(OutputStream&& other) noexcept
    : fd_(other.fd_),
      owns_fd_(other.owns_fd_),
      path_(std::move(other.path_)),
      directory_(std::move(other.directory_)),
      temporary_(std::move(other.temporary_)),
      buffer_(std::move(other.buffer_)),
      committed_(other.committed_) {
  other.fd_ = 1;
  other.owns_fd_ = false;
  other.path_.clear();
  other.directory_.clear();
  other.temporary_.clear();
  other.committed_ = true;
}

void OutputStream::open_temporary(const std::string& near) {
  // mkstemp creates the temporary exclusively (O_EXCL), so it never follows a planted link.
  temporary_ = near + ".XXXXXX";
  fd_ = create_registered_temporary(temporary_);
  if (fd_ < 0) {
    throw system_error(near);
  }
  // mkstemp makes the file private; give it the permissions a plain creat() would.
  ::fchmod(fd_, 0666 & ~current_umask());
  buffer_.reserve(kFlushAt + 4096);
}

OutputStream::~OutputStream() {
  if (temporary_.empty()) {
    try {
      flush();
    } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor has nobody left to tell
    }
    if (owns_fd_) {
      ::close(fd_);
    }
    return;
  }
  if (!committed_) {
    ::close(fd_);
    ::unlink(temporary_.c_str());
    unregister_temporary(temporary_);
  }
}

void OutputStream::close_direct() {
  if (owns_fd_) {
    owns_fd_ = false;
    if (::close(fd_) != 0) {
      throw system_error(path_);
    }
  }
}

void OutputStream::flush() {
  std::size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      buffer_.clear();
      // A file still unnamed (in_directory) is known by its folder.
      throw system_error(!path_.empty() ? path_ : !directory_.empty() ? directory_ : "<stdout>");
    }
    done += static_cast<std::size_t>(n);
  }
  buffer_.clear();
}

void OutputStream::commit() {
  flush();
  if (temporary_.empty()) {
    close_direct();
    return;
  }
  if (committed_) {
    return;
  }
  if (path_.empty()) {
    throw std::logic_error("OutputStream::commit without a file name");
  }
  if (::close(fd_) != 0) {
    throw system_error(path_);
  }
  if (::rename(temporary_.c_str(), path_.c_str()) != 0) {
    const std::runtime_error error = system_error(path_);
    ::unlink(temporary_.c_str());
    unregister_temporary(temporary_);
    committed_ = true;
    throw error;
  }
  unregister_temporary(temporary_);
  committed_ = true;
}

}  // namespace rtrace

namespace rtrace {

std::string OutputStream::commit_numbered(const std::string& prefix, const std::string& suffix) {
  return commit_first_free([&](unsigned n) { return prefix + std::to_string(n) + suffix; });
}

std::string OutputStream::commit_unique(const std::string& stem, const std::string& suffix) {
  return commit_first_free(
      [&](unsigned n) { return n == 0 ? stem + suffix : stem + "." + std::to_string(n) + suffix; });
}

std::string OutputStream::commit_first_free(const std::function<std::string(unsigned)>& name_of) {
  flush();
  if (::close(fd_) != 0) {
    throw system_error(directory_);
  }
  for (unsigned n = 0;; ++n) {
    std::string path = directory_;
    path.append("/").append(name_of(n));
    // RENAME_NOREPLACE: an existing file, or one created meanwhile, is never replaced.
    if (::renameat2(AT_FDCWD, temporary_.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) == 0) {
      unregister_temporary(temporary_);
      committed_ = true;
      return path;
    }
    if (errno != EEXIST) {
      const std::runtime_error error = system_error(path);
      ::unlink(temporary_.c_str());
      unregister_temporary(temporary_);
      committed_ = true;
      throw error;
    }
  }
}

}  // namespace rtrace
