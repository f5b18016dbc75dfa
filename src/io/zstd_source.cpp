// zstd decompression with the streaming API.
//
// ZSTD_nextSrcSizeToDecompress (how many input bytes the next decoding step takes) and
// ZSTD_decompressBegin are declared only for static linking, but libzstd.so exports them and they
// have been stable since zstd 1.0. The step size only decides how the input is sliced; any slicing
// decodes the same data.
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/byte_source.h"
#include "io/decompression_limit.h"

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
    // A fresh context leaves its next step size undefined until a frame begins; this defines it.
    ZSTD_decompressBegin(stream_);
  }
  ~ZstdSource() override { ZSTD_freeDStream(stream_); }
  ZstdSource(const ZstdSource&) = delete;
  ZstdSource& operator=(const ZstdSource&) = delete;

  std::size_t read(std::span<std::uint8_t> buffer) override {
    ZSTD_outBuffer out{buffer.data(), buffer.size(), 0};
    while (out.pos == 0 && !ended_) {
      if (in_pos_ == in_size_ && !refill()) {
        if (frame_open_) {
          stop("zstd data ends inside a frame (a truncated file?)", false);
        }
        ended_ = true;
        break;
      }
      // One decoding step (a header, or one block) per call: a call that fails forgets what it
      // decoded before the failure, so this keeps every block before corrupt data.
      const std::size_t step = std::max<std::size_t>(1, ZSTD_nextSrcSizeToDecompress(stream_));
      ZSTD_inBuffer in{input_.data(), std::min(in_size_, in_pos_ + step), in_pos_};
      const std::size_t rc = ZSTD_decompressStream(stream_, &out, &in);
      in_pos_ = in.pos;
      if (ZSTD_isError(rc)) {
        stop(std::string("corrupt zstd data: ") + ZSTD_getErrorName(rc), true);
        break;
      }
      frame_open_ = rc != 0;
    }
    decompressed_ += out.pos;
    if (!ended_ && limit_.exceeded(consumed(), decompressed_)) {
      stop(limit_.describe("zstd"), true);
    }
    return out.pos;
  }

 private:
  bool refill() {
    in_size_ = in_->read(input_);
    in_pos_ = 0;
    fed_ += in_size_;
    return in_size_ > 0;
  }

  // Compressed bytes the decoder has taken so far.
  std::uint64_t consumed() const { return fed_ - (in_size_ - in_pos_); }

  void stop(std::string message, bool fatal) {
    set_damage(consumed(), std::move(message), fatal);
    ended_ = true;
  }

  std::unique_ptr<ByteSource> in_;
  ZSTD_DStream* stream_;
  std::vector<std::uint8_t> input_;
  std::size_t in_pos_ = 0;
  std::size_t in_size_ = 0;
  std::uint64_t fed_ = 0;
  std::uint64_t decompressed_ = 0;
  DecompressionLimit limit_;
  bool frame_open_ = false;
  bool ended_ = false;
};

}  // namespace

std::unique_ptr<ByteSource> make_zstd_source(std::unique_ptr<ByteSource> compressed) {
  return std::make_unique<ZstdSource>(std::move(compressed));
}

}  // namespace rtrace
