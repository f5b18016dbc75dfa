// gzip (and zlib) decompression with zlib's streaming inflate.
#include <zlib.h>

#include <array>
#include <stdexcept>
#include <string>

#include "io/byte_source.h"
#include "io/decompression_limit.h"

namespace rtrace {
namespace {

class GzipSource final : public ByteSource {
 public:
  explicit GzipSource(std::unique_ptr<ByteSource> compressed) : in_(std::move(compressed)) {
    // 15 window bits + 32: accept both gzip and zlib headers.
    if (inflateInit2(&stream_, 15 + 32) != Z_OK) {
      throw std::runtime_error("cannot start gzip");
    }
  }
  ~GzipSource() override { inflateEnd(&stream_); }
  GzipSource(const GzipSource&) = delete;
  GzipSource& operator=(const GzipSource&) = delete;

  std::size_t read(std::span<std::uint8_t> buffer) override {
    stream_.next_out = buffer.data();
    stream_.avail_out = static_cast<uInt>(buffer.size());
    while (stream_.avail_out == buffer.size() && !ended_) {
      if (stream_.avail_in == 0 && !refill()) {
        stop("gzip data ends before its end marker (a truncated file?)", false);
        break;
      }
      const int rc = inflate(&stream_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        // Concatenated gzip members are one stream, as gzip(1) reads them.
        if (stream_.avail_in == 0 && !refill()) {
          ended_ = true;
        } else if (inflateReset(&stream_) != Z_OK) {
          stop("corrupt gzip data", true);
        }
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        stop(std::string("corrupt gzip data: ") + (stream_.msg ? stream_.msg : "inflate failed"),
             true);
      }
    }
    const std::size_t produced = buffer.size() - stream_.avail_out;
    decompressed_ += produced;
    if (!ended_ && limit_.exceeded(consumed(), decompressed_)) {
      stop(limit_.describe("gzip"), true);
    }
    return produced;
  }

 private:
  bool refill() {
    const std::size_t n = in_->read(input_);
    stream_.next_in = input_.data();
    stream_.avail_in = static_cast<uInt>(n);
    fed_ += n;
    return n > 0;
  }

  // Compressed bytes inflate has taken so far.
  std::uint64_t consumed() const { return fed_ - stream_.avail_in; }

  void stop(std::string message, bool fatal) {
    set_damage(consumed(), std::move(message), fatal);
    ended_ = true;
  }

  std::unique_ptr<ByteSource> in_;
  std::array<std::uint8_t, 1 << 16> input_{};
  z_stream stream_{};
  std::uint64_t fed_ = 0;
  std::uint64_t decompressed_ = 0;
  DecompressionLimit limit_;
  bool ended_ = false;
};

}  // namespace

std::unique_ptr<ByteSource> make_gzip_source(std::unique_ptr<ByteSource> compressed) {
  return std::make_unique<GzipSource>(std::move(compressed));
}

}  // namespace rtrace
