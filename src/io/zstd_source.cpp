// zstd decompression with the streaming API.
#include <zstd.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "io/byte_source.h"

namespace rtrace {
namespace {

class ZstdSource final : public ByteSource {
 public:
  explicit ZstdSource(std::unique_ptr<ByteSource> compressed)
      : in_(std::move(compressed)), stream_(ZSTD_createDStream()), input_(ZSTD_DStreamInSize()) {
    if (stream_ == nullptr) {
      throw std::runtime_error("cannot start zstd");
    }
    // Bound the window a hostile frame may ask for (zstd's default limit is 128 MiB).
    ZSTD_DCtx_setParameter(stream_, ZSTD_d_windowLogMax, 27);
  }
  ~ZstdSource() override { ZSTD_freeDStream(stream_); }

  std::size_t read(std::span<std::uint8_t> buffer) override {
    ZSTD_outBuffer out{buffer.data(), buffer.size(), 0};
    while (out.pos == 0) {
      if (in_pos_ == in_size_) {
        in_size_ = in_->read(input_);
        in_pos_ = 0;
        if (in_size_ == 0) {
          if (frame_open_) {
            throw std::runtime_error("zstd data ends inside a frame");
          }
          return 0;
        }
      }
      ZSTD_inBuffer in{input_.data(), in_size_, in_pos_};
      const std::size_t rc = ZSTD_decompressStream(stream_, &out, &in);
      in_pos_ = in.pos;
      if (ZSTD_isError(rc)) {
        throw std::runtime_error(std::string("corrupt zstd data: ") + ZSTD_getErrorName(rc));
      }
      frame_open_ = rc != 0;
    }
    return out.pos;
  }

 private:
  std::unique_ptr<ByteSource> in_;
  ZSTD_DStream* stream_;
  std::vector<std::uint8_t> input_;
  std::size_t in_pos_ = 0;
  std::size_t in_size_ = 0;
  bool frame_open_ = false;
};

}  // namespace

std::unique_ptr<ByteSource> make_zstd_source(std::unique_ptr<ByteSource> compressed) {
  return std::make_unique<ZstdSource>(std::move(compressed));
}

}  // namespace rtrace
