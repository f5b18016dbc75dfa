// Sources of raw bytes: a file descriptor, or a decompressor over another source.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace rtrace {

// Why a stream of bytes ended before its real end: compressed data that is cut off (like a
// truncated plain file: a warning) or corrupt, or a decompression bomb (errors). `offset` is the
// byte offset in the compressed file.
struct StreamDamage {
  std::uint64_t offset = 0;
  std::string message;
  bool fatal = false;
};

class ByteSource {
 public:
  ByteSource() = default;
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;
  virtual ~ByteSource() = default;

  // Fills the front of `buffer`; returns how many bytes were written, 0 only at the end.
  // Throws std::runtime_error when the data cannot be read. Damaged compressed data ends the
  // stream early (read() returns 0, as at a real end) and is described by damage(), so that
  // readers keep everything decoded before it and their caller reports it afterwards.
  virtual std::size_t read(std::span<std::uint8_t> buffer) = 0;

  const std::optional<StreamDamage>& damage() const { return damage_; }

 protected:
  void set_damage(std::uint64_t offset, std::string message, bool fatal) {
    damage_ = StreamDamage{offset, std::move(message), fatal};
  }

 private:
  std::optional<StreamDamage> damage_;
};

// Reads a file descriptor it may or may not own.
class FdSource final : public ByteSource {
 public:
  // `name` is the file's name for messages.
  FdSource(int fd, bool owned, std::string name = "<input>")
      : fd_(fd), owned_(owned), name_(std::move(name)) {}
  ~FdSource() override;
  std::size_t read(std::span<std::uint8_t> buffer) override;

 private:
  int fd_;
  bool owned_;
  std::string name_;
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
