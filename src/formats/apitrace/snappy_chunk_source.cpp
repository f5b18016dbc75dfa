// apitrace's Snappy container: 'a' 't', then chunks of [uint32 little-endian compressed length]
// [one raw Snappy block]. The writer cuts a chunk every 1 MiB of stream (earlier on a flush), so
// chunk boundaries ignore event boundaries. There is no end marker: the file just ends; a zero
// length or fewer than 4 bytes left also mean the end.
#include <fmt/format.h>
#include <snappy-sinksource.h>
#include <snappy.h>

#include <algorithm>
#include <cstring>

#include "formats/apitrace/container.h"

namespace rtrace::apitrace {
namespace {

// apitrace writes 1 MiB chunks; allow more for other writers, but bound what one chunk may cost.
// No decompression limit is needed beside it: Snappy's densest element, a 3-byte copy of 64
// bytes, expands data at most about 21 times.
constexpr std::size_t kMaxChunk = std::size_t{16} << 20;
constexpr std::size_t kReadStep = std::size_t{64} << 10;

class SnappyChunkSource final : public ByteSource {
 public:
  SnappyChunkSource(std::unique_ptr<ByteSource> file, std::string name, Diagnostics& diagnostics)
      : file_(std::move(file)), name_(std::move(name)), diagnostics_(diagnostics) {}

  std::size_t read(std::span<std::uint8_t> buffer) override {
    while (used_ == chunk_.size()) {
      if (ended_ || !next_chunk()) {
        ended_ = true;
        return 0;
      }
    }
    const std::size_t n = std::min(buffer.size(), chunk_.size() - used_);
    std::memcpy(buffer.data(), chunk_.data() + used_, n);
    used_ += n;
    return n;
  }

 private:
  // Reads up to `wanted` bytes into `out` (growing it as data arrives); returns how many.
  std::size_t read_file(std::string& out, std::size_t wanted) {
    out.clear();
    while (out.size() < wanted) {
      const std::size_t step = std::min(kReadStep, wanted - out.size());
      const std::size_t old = out.size();
      out.resize(old + step);
      const std::size_t n =
          file_->read(std::span(reinterpret_cast<std::uint8_t*>(out.data()) + old, step));
      out.resize(old + n);
      if (n == 0) {
        break;
      }
    }
    file_offset_ += out.size();
    return out.size();
  }

  void check_magic() {
    std::string magic;
    read_file(magic, 2);
    if (magic != "at") {
      throw InputError(name_, 0, "not an apitrace Snappy container (no 'at' magic)");
    }
    magic_checked_ = true;
  }

  bool next_chunk() {
    if (!magic_checked_) {
      check_magic();
    }
    const std::uint64_t chunk_offset = file_offset_;
    std::string length_bytes;
    const std::size_t got = read_file(length_bytes, 4);
    if (got < 4) {
      if (got > 0) {
        diagnostics_.warning(name_, chunk_offset,
                             fmt::format("{} stray byte(s) after the last chunk ignored", got));
      }
      return false;
    }
    const auto* b = reinterpret_cast<const std::uint8_t*>(length_bytes.data());
    const std::uint32_t length = b[0] | (b[1] << 8) | (b[2] << 16) | (std::uint32_t{b[3]} << 24);
    if (length == 0) {
      return false;
    }
    if (length > snappy::MaxCompressedLength(kMaxChunk)) {
      throw InputError(name_, chunk_offset,
                       fmt::format("Snappy chunk length {} is larger than any chunk can be "
                                   "(corrupt container)",
                                   length));
    }
    const std::size_t have = read_file(compressed_, length);
    chunk_.clear();
    used_ = 0;
    if (have < length) {
      salvage(chunk_offset, have, length);
      return true;
    }
    std::size_t size = 0;
    if (!snappy::GetUncompressedLength(compressed_.data(), compressed_.size(), &size) ||
        size > kMaxChunk) {
      throw InputError(name_, chunk_offset, "corrupt Snappy chunk (bad length preamble)");
    }
    chunk_.resize(size);
    if (!snappy::RawUncompress(compressed_.data(), compressed_.size(), chunk_.data())) {
      throw InputError(name_, chunk_offset, "corrupt Snappy chunk (does not decompress)");
    }
    return true;
  }

  // The file ends inside this chunk (a killed writer): keep what decompresses.
  void salvage(std::uint64_t chunk_offset, std::size_t have, std::size_t length) {
    std::size_t size = 0;
    if (have > 0 && snappy::GetUncompressedLength(compressed_.data(), have, &size) &&
        size <= kMaxChunk) {
      chunk_.resize(size);
      snappy::ByteArraySource source(compressed_.data(), have);
      snappy::UncheckedByteArraySink sink(chunk_.data());
      chunk_.resize(snappy::UncompressAsMuchAsPossible(&source, &sink));
    }
    diagnostics_.warning(name_, chunk_offset,
                         fmt::format("the file ends inside its last Snappy chunk ({} of {} "
                                     "bytes); {} bytes of it decompressed",
                                     have, length, chunk_.size()));
  }

  std::unique_ptr<ByteSource> file_;
  std::string name_;
  Diagnostics& diagnostics_;
  std::uint64_t file_offset_ = 0;
  bool magic_checked_ = false;
  bool ended_ = false;
  std::string compressed_;
  std::string chunk_;
  std::size_t used_ = 0;
};

}  // namespace

std::unique_ptr<ByteSource> make_snappy_chunk_source(std::unique_ptr<ByteSource> file,
                                                     std::string name, Diagnostics& diagnostics) {
  return std::make_unique<SnappyChunkSource>(std::move(file), std::move(name), diagnostics);
}

}  // namespace rtrace::apitrace
