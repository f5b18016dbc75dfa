// Sources of raw bytes: a file descriptor, or a decompressor over another source.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace rtrace {

class ByteSource {
 public:
  ByteSource() = default;
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;
  virtual ~ByteSource() = default;

  // Fills the front of `buffer`; returns how many bytes were written, 0 only at the end.
  // Throws std::runtime_error when the data cannot be read.
  virtual std::size_t read(std::span<std::uint8_t> buffer) = 0;
};

// Reads a file descriptor it may or may not own.
class FdSource final : public ByteSource {
 public:
  FdSource(int fd, bool owned) : fd_(fd), owned_(owned) {}
  ~FdSource() override;
  std::size_t read(std::span<std::uint8_t> buffer) override;

 private:
  int fd_;
  bool owned_;
};

// Gives back bytes already read from `rest` (while sniffing the content) before reading on.
class PrefixedSource final : public ByteSource {
 public:
  PrefixedSource(std::vector<std::uint8_t> prefix, std::unique_ptr<ByteSource> rest)
      : prefix_(std::move(prefix)), rest_(std::move(rest)) {}
  std::size_t read(std::span<std::uint8_t> buffer) override;

 private:
  std::vector<std::uint8_t> prefix_;
  std::size_t prefix_used_ = 0;
  std::unique_ptr<ByteSource> rest_;
};

std::unique_ptr<ByteSource> make_gzip_source(std::unique_ptr<ByteSource> compressed);
std::unique_ptr<ByteSource> make_zstd_source(std::unique_ptr<ByteSource> compressed);

}  // namespace rtrace
