#include "recorder/trace_file_passing.h"

#include <poll.h>
#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>

#include "protocol/file_from_recorder.h"
#include "recorder/trace_handler.h"

namespace rtrace::recorder {

using file_from_recorder::kFilePassed;
using file_from_recorder::kNoFile;
using file_from_recorder::kOutOfSpace;
using file_from_recorder::kReserveFreed;
using file_from_recorder::kTraceClosed;

bool send_trace_file(int connection, int file) {
  char byte = file >= 0 ? kFilePassed : kNoFile;
  iovec data{&byte, 1};
  alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int))> control{};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  if (file >= 0) {
    message.msg_control = control.data();
    message.msg_controllen = control.size();
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(header), &file, sizeof file);
  }
  for (;;) {
    if (::sendmsg(connection, &message, MSG_NOSIGNAL) == 1) {
      return true;
    }
    if (errno != EINTR) {
      return false;
    }
  }
}

TraceClose wait_for_trace_close(int connection, const std::function<void()>& out_of_space,
                                const std::function<void()>& every_100ms) {
  constexpr int kTickMs = 100;
  TraceClose said;
  std::array<std::uint8_t, 64> buffer{};
  for (;;) {
    if (every_100ms) {
      pollfd readable{connection, POLLIN, 0};
      const int ready = ::poll(&readable, 1, kTickMs);
      if (ready < 0 && errno != EINTR) {
        throw std::runtime_error(std::string("waiting on a trace connection: ") +
                                 std::strerror(errno));
      }
      if (ready <= 0) {
        every_100ms();
        continue;
      }
    }
    const std::size_t n = read_some(connection, buffer.data(), buffer.size());
    if (n == 0) {
      return said;
    }
    // Bytes other than the protocol's are ignored.
    for (const std::uint8_t byte : std::span(buffer.data(), n)) {
      if (byte == static_cast<std::uint8_t>(kTraceClosed)) {
        said.closed = true;
      } else if (byte == static_cast<std::uint8_t>(kOutOfSpace) && !said.out_of_space) {
        said.out_of_space = true;
        out_of_space();
        ::send(connection, &kReserveFreed, 1, MSG_NOSIGNAL);
      }
    }
  }
}

}  // namespace rtrace::recorder
