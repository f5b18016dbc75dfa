#include "recorder/stream_tap.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <exception>
#include <memory>
#include <system_error>
#include <vector>

#include "io/byte_source.h"

namespace rtrace::recorder {
namespace {

// Reads what is left of the pipe, so that the writer never blocks on an observer that stopped.
void drain_pipe(int fd) {
  std::vector<std::uint8_t> buffer(std::size_t{1} << 16);
  while (true) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n == 0 || (n < 0 && errno != EINTR)) {
      return;
    }
  }
}

}  // namespace

StreamTap::StreamTap(const StreamObserver& observer, std::uint32_t peer_pid) {
  int ends[2] = {-1, -1};
  if (::pipe2(ends, O_CLOEXEC) != 0) {
    throw std::system_error(errno, std::generic_category(), "a pipe for the trace's observer");
  }
  write_end_ = ends[1];
  const int read_end = ends[0];
  reader_ = std::thread([observer, peer_pid, read_end] {
    try {
      const std::unique_ptr<InputStream> input =
          open_input(std::make_unique<FdSource>(read_end, false),
                     fmt::format("<trace of process {}>", peer_pid));
      if (!input->at_end()) {
        observer(*input, peer_pid);
      }
    } catch (const std::exception& error) {
      fmt::print(stderr, "rtrace: trace of process {}: {}\n", peer_pid, error.what());
    }
    drain_pipe(read_end);
    ::close(read_end);
  });
}

StreamTap::~StreamTap() {
  close();
}

void StreamTap::feed(std::span<const std::uint8_t> bytes) {
  while (write_end_ >= 0 && !bytes.empty()) {
    const ssize_t n = ::write(write_end_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return;  // the reader is gone (it drains until the end, so only on a broken pipe)
    }
    bytes = bytes.subspan(static_cast<std::size_t>(n));
  }
}

void StreamTap::close() {
  if (write_end_ >= 0) {
    ::close(write_end_);
    write_end_ = -1;
  }
  if (reader_.joinable()) {
    reader_.join();
  }
}

}  // namespace rtrace::recorder
