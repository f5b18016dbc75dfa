#include "tracer/output/trace_output.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "protocol/file_from_recorder.h"
#include "protocol/trace_file_name.h"
#include "tracer/core/clock.h"
#include "tracer/core/decimal.h"
#include "tracer/output/compact_transcoder.h"
#include "tracer/output/trace_compressor.h"

namespace rtrace::tracer {
namespace {

// Programs expect their own descriptors to get small numbers; ours lives high.
constexpr int kHighFd = 1000;
constexpr int kMaxPieces = 512;
constexpr int kSendBuffer = 8 << 20;

// Where the bytes go: the trace file (managed mode, or the file the recorder passed us) or the
// recorder's connection.
int g_fd = -1;
bool g_fd_is_socket = false;
// With a file from the recorder (file-from-recorder=1): the connection, kept open without being
// written until the trace ends, so that the recorder knows when the file is whole (a byte says
// the trace was closed, not broken off; EOF alone: the process died).
int g_connection = -1;
unsigned g_managed_index = 0;
bool g_broken = false;
// A write to the trace's file failed for lack of space: the session ends the trace
// (output_out_of_space), with the room the recorder kept for that when it could free it.
bool g_out_of_space = false;
// The compact format (compact_transcoder.h): everything written is transcoded into g_buffer.
bool g_compact = false;

// compress=N (trace_compressor.h): whether the compact stream goes out as a zstd frame. Until
// libzstd is loaded the bytes stay in g_buffer (Undecided); when it is not by the time they must
// go (the buffer is full, the trace ends), the trace is written uncompressed, with a NOTE record
// saying why.
enum class Compression : std::uint8_t { Off, Undecided, On };
Compression g_compression = Compression::Off;
int g_compress_level = 0;
bool g_note_pending = false;

char g_buffer[std::size_t{1024} * 1024];
// Compact bytes are written in batches of this many (the buffer holds four), or once the last
// write is kMaxWriteDelayMs old: a process killed by SIGKILL still loses at most its last ~10 ms
// (src/tracer/README.md).
constexpr std::size_t kWriteBatch = std::size_t{256} * 1024;
constexpr std::uint32_t kMaxWriteDelayMs = 10;
std::uint32_t g_last_write_ms = 0;
std::size_t g_buffered = 0;
iovec g_pieces[kMaxPieces];
int g_piece_count = 0;

// Our close: the interposed close() refuses to close the connection.
void close_descriptor(int fd) {
  ::syscall(SYS_close, fd);
}

// Closes the trace's descriptors; `closed` says so to the recorder when it passed us the file.
void close_descriptors(bool closed) {
  if (g_fd >= 0) {
    close_descriptor(g_fd);
    g_fd = -1;
  }
  if (g_connection >= 0) {
    if (closed) {
      ::send(g_connection, &file_from_recorder::kTraceClosed, 1, MSG_NOSIGNAL);
    }
    close_descriptor(g_connection);
    g_connection = -1;
  }
}

// The connection broke: nothing more can be written.
void drop_connection() {
  close_descriptors(false);
  g_broken = true;
}

int move_to_high_fd(int fd) {
  const int high = ::fcntl(fd, F_DUPFD_CLOEXEC, kHighFd);
  if (high < 0) {
    return fd;
  }
  close_descriptor(fd);
  return high;
}

// Managed mode's file (protocol/trace_file_name.h): a compact trace is <dir>/NAME.PID.rtrace, or
// NAME.PID.N.rtrace with the smallest N from 1 that is free (a second trace of the process: an
// exec, tracing toggled off and on); sp-rtrace's format keeps the original's <dir>/PID-N.rtrace,
// N from 0. NAME is the program's as it calls itself (argv[0]'s file name).
int open_managed_file(const char* directory, pid_t pid, bool compact) {
  char path[PATH_MAX + trace_file_name::kMaxFieldBytes + 64];
  const std::size_t dir_length = std::strlen(directory);
  if (dir_length + trace_file_name::kMaxFieldBytes + 48 > sizeof path) {
    return -1;
  }
  const std::string_view program = trace_file_name::program_field(program_invocation_name);
  for (unsigned attempt = 0; attempt < 100000; ++attempt) {
    char* out = path;
    std::memcpy(out, directory, dir_length);
    out += dir_length;
    *out++ = '/';
    if (compact) {
      std::memcpy(out, program.data(), program.size());
      out += program.size();
      *out++ = '.';
      out = write_decimal(out, static_cast<std::uint64_t>(pid));
      if (attempt > 0) {
        *out++ = '.';
        out = write_decimal(out, attempt);
      }
    } else {
      out = write_decimal(out, static_cast<std::uint64_t>(pid));
      *out++ = '-';
      out = write_decimal(out, g_managed_index++);
    }
    std::memcpy(out, trace_file_name::kSuffix.data(), trace_file_name::kSuffix.size());
    out[trace_file_name::kSuffix.size()] = '\0';
    const int fd = ::open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) {
      return fd;
    }
  }
  return -1;
}

int connect_recorder(const char* socket_path) {
  sockaddr_un address{};
  const std::size_t length = socket_path == nullptr ? 0 : std::strlen(socket_path);
  if (length == 0 || length >= sizeof address.sun_path) {
    return -1;
  }
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return -1;
  }
  // Room for several of the writer's batches (kWriteBatch) in the kernel, as far as
  // net.core.wmem_max allows (the default, 208 KiB, is less than one uncompressed batch): the
  // writer, which holds the drain lock, then need not wait in sendmsg for the recorder to read.
  const int send_buffer = kSendBuffer;
  ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &send_buffer, sizeof send_buffer);
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, socket_path, length);
  while (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    if (errno != EINTR) {
      close_descriptor(fd);
      return -1;
    }
  }
  return fd;
}

// file-from-recorder=1: asks the recorder for the trace's file (file_from_recorder.h). Returns the
// descriptor, -1 when the trace goes through the connection after all, -2 when the connection
// broke.
int receive_trace_file(int connection) {
  const char ask = file_from_recorder::kAskForFile;
  ssize_t sent = 0;
  do {
    sent = ::send(connection, &ask, 1, MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  if (sent != 1) {
    return -2;
  }
  char byte = 0;
  iovec data{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  ssize_t received = 0;
  do {
    received = ::recvmsg(connection, &message, MSG_CMSG_CLOEXEC);
  } while (received < 0 && errno == EINTR);
  int file = -1;
  for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr;
       header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS &&
        header->cmsg_len == CMSG_LEN(sizeof(int)) && file < 0) {
      std::memcpy(&file, CMSG_DATA(header), sizeof file);
    }
  }
  if (received != 1) {
    if (file >= 0) {
      close_descriptor(file);
    }
    return -2;
  }
  return file;
}

// Connects to the recorder; with file-from-recorder=1 takes the file it passes. False when there
// is no connection to be had.
bool open_recorder_output(const TracerOptions& options, const char* socket_path) {
  const int connection = connect_recorder(socket_path);
  if (connection < 0) {
    return false;
  }
  const int file = options.file_from_recorder ? receive_trace_file(connection) : -1;
  if (file == -2) {
    close_descriptor(connection);
    return false;
  }
  if (file < 0) {
    g_fd = move_to_high_fd(connection);
    g_fd_is_socket = true;
    return true;
  }
  g_connection = move_to_high_fd(connection);
  g_fd = move_to_high_fd(file);
  g_fd_is_socket = false;
  return true;
}

// The recorder's reserve (protocol/file_from_recorder.h): asks it to free the room it keeps in
// the trace's folder, and waits for its answer. A second at most: a recorder that does not know
// the request never answers, and the program must not hang on its trace.
bool ask_recorder_for_room() {
  constexpr int kPatienceMs = 1000;
  if (g_connection < 0 ||
      ::send(g_connection, &file_from_recorder::kOutOfSpace, 1, MSG_NOSIGNAL) != 1) {
    return false;
  }
  const std::uint32_t deadline = monotonic_milliseconds() + kPatienceMs;
  for (;;) {
    const auto left = static_cast<std::int32_t>(deadline - monotonic_milliseconds());
    pollfd readable{g_connection, POLLIN, 0};
    const int ready = left > 0 ? ::poll(&readable, 1, left) : 0;
    if (ready < 0 && errno == EINTR) {
      continue;
    }
    char answer = 0;
    return ready > 0 && ::recv(g_connection, &answer, 1, 0) == 1 &&
           answer == file_from_recorder::kReserveFreed;
  }
}

// Whether a failed write of the trace's file is the file system's lack of space (or of the
// user's quota), which the trace's end can still say when the recorder frees its reserve.
bool out_of_space(ssize_t written) {
  return written < 0 && !g_fd_is_socket && (errno == ENOSPC || errno == EDQUOT);
}

// Writes pieces[0..count), resuming after short writes; false when the connection broke.
bool write_vector(iovec* piece, int count) {
  while (count > 0 && g_fd >= 0) {
    msghdr message{};
    message.msg_iov = piece;
    message.msg_iovlen = static_cast<std::size_t>(count < IOV_MAX ? count : IOV_MAX);
    const ssize_t written = g_fd_is_socket
                                ? ::sendmsg(g_fd, &message, MSG_NOSIGNAL)
                                : ::writev(g_fd, piece, static_cast<int>(message.msg_iovlen));
    if (written < 0 && errno == EINTR) {
      continue;
    }
    if (out_of_space(written) && !g_out_of_space) {
      g_out_of_space = true;
      if (ask_recorder_for_room()) {
        continue;
      }
    }
    if (written <= 0) {
      drop_connection();
      return false;
    }
    auto done = static_cast<std::size_t>(written);
    while (count > 0 && done >= piece->iov_len) {
      done -= piece->iov_len;
      ++piece;
      --count;
    }
    if (count > 0) {
      piece->iov_base = static_cast<char*>(piece->iov_base) + done;
      piece->iov_len -= done;
    }
  }
  return g_fd >= 0;
}

bool write_raw(const char* data, std::size_t size) {
  iovec whole{const_cast<char*>(data), size};
  return write_vector(&whole, 1);
}

void decide_compression() {
  if (compressor_ready() && compressor_begin(g_compress_level)) {
    g_compression = Compression::On;
  } else {
    g_compression = Compression::Off;
    g_note_pending = true;
  }
}

// Whether the compact bytes gathered so far go out at this drain: a batch is full, or the last
// write is kMaxWriteDelayMs old. Each write wakes the recorder, which then took the CPU from the
// writer in sendmsg, about 200 times per second of tracing when every 1-ms drain wrote
// (perf's sched_switch events over `rtrace record`). The sp-rtrace protocol's pieces are ring
// memory, which the merge gives back only once written: they always go at once.
bool batch_due() {
  if (!g_compact || g_buffered >= kWriteBatch) {
    return true;
  }
  return monotonic_milliseconds() - g_last_write_ms >= kMaxWriteDelayMs;
}

// `must`: the bytes have to go now (the buffer is full, the trace ends); otherwise an undecided
// compression keeps them a little longer.
bool write_buffer(bool must, bool end = false) {
  if (g_compression == Compression::Undecided) {
    if (!must && !compressor_ready()) {
      return true;
    }
    decide_compression();
  }
  if (!must && !batch_due()) {
    return true;
  }
  g_last_write_ms = monotonic_milliseconds();
  const std::size_t size = g_buffered;
  g_buffered = 0;
  if (g_compression == Compression::On) {
    if (size == 0 && !end) {
      return true;
    }
    if (!compressor_write(g_buffer, size, end, write_raw)) {
      // zstd failed (out of memory): the frame cannot go on; the trace is broken off.
      drop_connection();
      return false;
    }
    return g_fd >= 0;
  }
  return size == 0 || write_raw(g_buffer, size);
}

}  // namespace

bool output_open(const TracerOptions& options, const char* socket_path, pid_t pid) {
  if (options.managed()) {
    const int fd = open_managed_file(options.managed_dir, pid, options.compact);
    if (fd < 0) {
      return false;
    }
    g_fd = move_to_high_fd(fd);
    g_fd_is_socket = false;
  } else if (!open_recorder_output(options, socket_path)) {
    return false;
  }
  g_broken = false;
  g_out_of_space = false;
  g_compact = options.compact;
  g_compress_level = options.compress_level;
  g_compression = g_compact && g_compress_level > 0 ? Compression::Undecided : Compression::Off;
  g_note_pending = false;
  g_last_write_ms = monotonic_milliseconds();
  if (g_compact) {
    compact_restart();
  }
  return true;
}

bool output_is_open() {
  return g_fd >= 0;
}

bool output_out_of_space() {
  return g_out_of_space;
}

int output_descriptors(int (&fds)[2]) {
  int count = 0;
  const int own[2] = {g_fd, g_connection};
  for (const int fd : own) {
    if (fd >= 0) {
      fds[count++] = fd;
    }
  }
  if (count == 2 && fds[0] > fds[1]) {
    const int first = fds[1];
    fds[1] = fds[0];
    fds[0] = first;
  }
  return count;
}

bool output_owns(int fd) {
  return fd >= 0 && (fd == g_fd || fd == g_connection);
}

namespace {

void close_output(bool closed) {
  if (g_fd < 0) {
    close_descriptors(false);
    return;
  }
  // Compact bytes may wait for a batch (batch_due) even uncompressed.
  if (g_compression != Compression::Off || g_note_pending || g_buffered > 0) {
    // What is still buffered, the note, and the end of the zstd frame.
    write_buffer(true);
    if (g_note_pending && g_fd >= 0) {
      g_note_pending = false;
      compact_note(
          "compression was asked for, but libzstd.so.1 was not loaded when the trace had to be "
          "written (missing, or not loadable safely yet): written uncompressed");
    }
    if (g_fd >= 0) {
      write_buffer(true, true);
    }
    g_compression = Compression::Off;
  }
  close_descriptors(closed && g_fd >= 0);
}

}  // namespace

void output_close() {
  close_output(true);
}

void output_forget_after_fork() {
  // The parent's bytes are the parent's to write: dropped before the close, which would write
  // them.
  g_compression = Compression::Off;
  g_note_pending = false;
  g_buffered = 0;
  g_piece_count = 0;
  close_output(false);
  g_managed_index = 0;
}

void output_move_from(int fd) {
  int* const owned[2] = {&g_fd, &g_connection};
  for (int* own : owned) {
    if (fd >= 0 && fd == *own) {
      const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, kHighFd + 1);
      if (moved >= 0) {
        *own = moved;
        close_descriptor(fd);
      }
    }
  }
}

bool output_copies_records() {
  return g_compact;
}

void output_append(const char* data, std::size_t size) {
  if (g_compact) {
    compact_transcode(data, size);
    return;
  }
  if (g_piece_count > 0 || sizeof g_buffer - g_buffered < size) {
    output_flush();  // keep the order: queued pieces first
  }
  if (size > sizeof g_buffer) {
    iovec whole{const_cast<char*>(data), size};
    write_vector(&whole, 1);
    return;
  }
  std::memcpy(g_buffer + g_buffered, data, size);
  g_buffered += size;
}

bool output_add_piece(const char* data, std::size_t size) {
  if (g_compact) {
    compact_transcode(data, size);
    return true;
  }
  if (g_piece_count > 0) {
    iovec& last = g_pieces[g_piece_count - 1];
    if (static_cast<const char*>(last.iov_base) + last.iov_len == data) {
      last.iov_len += size;
      return true;
    }
  }
  if (g_piece_count == kMaxPieces) {
    return false;
  }
  g_pieces[g_piece_count++] = iovec{const_cast<char*>(data), size};
  return true;
}

void output_add_call(const compact::CallFields& call) {
  compact_call(call);
}

void output_add_transient(const compact::CallFields& allocation, bool release_has_stack) {
  compact_transient(allocation, release_has_stack);
}

void output_thread(std::uint32_t slot, std::uint64_t tid) {
  compact_thread(slot, tid);
}

char* output_reserve(std::size_t bytes) {
  if (bytes > sizeof g_buffer) {
    return nullptr;
  }
  if (sizeof g_buffer - g_buffered < bytes) {
    write_buffer(true);
  }
  return g_buffer + g_buffered;
}

void output_commit(std::size_t bytes) {
  g_buffered += bytes;
}

namespace {

bool flush_all(bool now) {
  bool ok = write_buffer(now);
  ok = ok && write_vector(g_pieces, g_piece_count);
  g_piece_count = 0;
  return ok && !g_broken;
}

}  // namespace

bool output_flush() {
  return flush_all(false);
}

bool output_flush_now() {
  return flush_all(true);
}

}  // namespace rtrace::tracer
