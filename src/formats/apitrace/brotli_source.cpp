// Brotli container: the whole call stream as one Brotli stream (apitrace repack --brotli).
#include <brotli/decode.h>
#include <fmt/format.h>

#include <array>

#include "formats/apitrace/container.h"
#include "formats/apitrace/stream_sniffer.h"
#include "io/decompression_limit.h"
#include "io/diagnostics.h"

namespace rtrace::apitrace {
namespace {

class BrotliSource final : public ByteSource {
 public:
  BrotliSource(std::unique_ptr<ByteSource> file, std::string name, Diagnostics& diagnostics)
      : file_(std::move(file)),
        name_(std::move(name)),
        diagnostics_(diagnostics),
        state_(BrotliDecoderCreateInstance(nullptr, nullptr, nullptr)) {
    if (state_ == nullptr) {
      throw std::runtime_error("cannot start the Brotli decoder");
    }
  }
  ~BrotliSource() override { BrotliDecoderDestroyInstance(state_); }
  BrotliSource(const BrotliSource&) = delete;
  BrotliSource& operator=(const BrotliSource&) = delete;

  std::size_t read(std::span<std::uint8_t> buffer) override {
    std::size_t available_out = buffer.size();
    std::uint8_t* next_out = buffer.data();
    while (!done_ && available_out == buffer.size()) {
      if (available_in_ == 0 && !file_ended_) {
        available_in_ = file_->read(input_);
        next_in_ = input_.data();
        file_ended_ = available_in_ == 0;
      }
      const std::size_t before = available_in_;
      const BrotliDecoderResult result = BrotliDecoderDecompressStream(
          state_, &available_in_, &next_in_, &available_out, &next_out, nullptr);
      consumed_ += before - available_in_;
      if (result == BROTLI_DECODER_RESULT_ERROR) {
        throw InputError(
            name_, consumed_,
            produced_ == 0 && next_out == buffer.data()
                ? "not an apitrace trace (no Snappy, gzip or zstd magic number, "
                  "and not Brotli data)"
                : fmt::format("corrupt Brotli data ({})",
                              BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state_))));
      }
      if (result == BROTLI_DECODER_RESULT_SUCCESS) {
        done_ = true;
      } else if (result == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT && file_ended_) {
        // A cut file: what decompressed is kept, as for a cut Snappy chunk.
        diagnostics_.warning(name_, consumed_, "the Brotli stream ends early (truncated file)");
        done_ = true;
      }
    }
    const std::size_t n = buffer.size() - available_out;
    produced_ += n;
    // Brotli reaches ratios of millions to one: the same bound as for gzip and zstd. The stream
    // ends here and the damage is reported after the calls decoded before it.
    if (!done_ && limit_.exceeded(consumed_, produced_)) {
      set_damage(consumed_, limit_.describe("Brotli"), true);
      done_ = true;
    }
    return n;
  }

 private:
  std::unique_ptr<ByteSource> file_;
  std::string name_;
  Diagnostics& diagnostics_;
  BrotliDecoderState* state_;
  std::array<std::uint8_t, 65536> input_{};
  const std::uint8_t* next_in_ = nullptr;
  std::size_t available_in_ = 0;
  std::uint64_t consumed_ = 0;
  std::uint64_t produced_ = 0;
  DecompressionLimit limit_;
  bool file_ended_ = false;
  bool done_ = false;
};

// Frees the decoder however the probe ends.
struct DecoderDeleter {
  void operator()(BrotliDecoderState* state) const { BrotliDecoderDestroyInstance(state); }
};

}  // namespace

bool looks_like_brotli_call_stream(std::span<const std::uint8_t> compressed) {
  const std::unique_ptr<BrotliDecoderState, DecoderDeleter> state(
      BrotliDecoderCreateInstance(nullptr, nullptr, nullptr));
  if (!state) {
    return false;
  }
  // The decoder hands out what it has decoded whenever it runs out of input, so the stream's
  // first bytes come long before the end of the first block.
  std::array<std::uint8_t, 64> head{};
  std::size_t available_in = compressed.size();
  const std::uint8_t* next_in = compressed.data();
  std::size_t available_out = head.size();
  std::uint8_t* next_out = head.data();
  const BrotliDecoderResult result = BrotliDecoderDecompressStream(
      state.get(), &available_in, &next_in, &available_out, &next_out, nullptr);
  if (result == BROTLI_DECODER_RESULT_ERROR) {
    return false;
  }
  const std::size_t produced = head.size() - available_out;
  return produced > 0 && looks_like_call_stream(std::span(head).first(produced));
}

std::unique_ptr<ByteSource> make_brotli_source(std::unique_ptr<ByteSource> file, std::string name,
                                               Diagnostics& diagnostics) {
  return std::make_unique<BrotliSource>(std::move(file), std::move(name), diagnostics);
}

}  // namespace rtrace::apitrace
