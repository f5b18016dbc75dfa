// Buffered output to standard output or to a named file.
//
// A named regular file is written under a temporary name in the same directory and renamed into
// place by commit(), so an interrupted run never leaves half a file, and an existing file is
// replaced only once the new one is complete (keeping its mode). The temporary is removed when
// the stream is abandoned and also when a signal kills the process (temporary_cleanup.h).
// Devices and FIFOs are written directly. What a path may be, and what is refused (our inputs,
// read-only files, links planted by others), is decided by output_target.h.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace rtrace {

class OutputStream {
 public:
  // Standard output.
  OutputStream();
  // The file (or device, or FIFO) at `path`; `inputs` are paths ("-" = standard input) that must
  // not be the same file. Throws std::runtime_error naming `path` when it must not be written.
  OutputStream(const std::string& path, const std::vector<std::string>& inputs);
  // A file in `directory` whose name is chosen at the end by commit_numbered().
  static OutputStream in_directory(const std::string& directory);
  OutputStream(OutputStream&& other) noexcept;
  OutputStream(const OutputStream&) = delete;
  OutputStream& operator=(const OutputStream&) = delete;
  // Without commit() a named file's temporary is removed and the target left untouched.
  ~OutputStream();

  void write(std::string_view bytes) {
    if (buffer_.size() + bytes.size() > kFlushAt) {
      flush();
    }
    buffer_.append(bytes);
  }
  // Writers format straight into this buffer and call maybe_flush() after each record.
  std::string& buffer() { return buffer_; }
  void maybe_flush() {
    if (buffer_.size() >= kFlushAt) {
      flush();
    }
  }
  void flush();
  // Flushes, and for a named file makes it appear under its name.
  void commit();
  // For in_directory(): names the file `<prefix><n><suffix>` with the smallest n that does not
  // exist yet (never replacing a file) and returns that path.
  std::string commit_numbered(const std::string& prefix, const std::string& suffix);
  // For in_directory(): names the file `<stem><suffix>`, or when that exists `<stem>.<n><suffix>`
  // with the smallest n from 1 that does not (never replacing a file); returns that path.
  std::string commit_unique(const std::string& stem, const std::string& suffix);
  // The descriptor written (for in_directory(): the temporary, which another process may be
  // given to write; the stream must not have buffered anything then).
  int fd() const { return fd_; }

 private:
  static constexpr std::size_t kFlushAt = std::size_t{1} << 20;

  struct InDirectory {};
  OutputStream(InDirectory, const std::string& directory);
  void open_temporary(const std::string& near);
  // Renames the temporary to the first of name_of(0), name_of(1), ... that does not exist.
  std::string commit_first_free(const std::function<std::string(unsigned)>& name_of);
  void close_direct();

  int fd_ = 1;
  bool owns_fd_ = false;  // a device or FIFO we opened (closed by commit() or the destructor)
  std::string path_;
  std::string directory_;
  std::string temporary_;
  std::string buffer_;
  bool committed_ = false;
};

}  // namespace rtrace
