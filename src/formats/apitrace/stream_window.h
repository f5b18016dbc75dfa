// A sliding window over the decompressed call stream: the decoder peeks at what one event
// needs and consumes it. The buffer holds at most what the largest peek asked for (bounded by
// the decoder's event limit) plus one read, whatever the size of the trace.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "io/byte_source.h"

namespace rtrace::apitrace {

class StreamWindow {
 public:
  StreamWindow(std::unique_ptr<ByteSource> source, std::string name)
      : source_(std::move(source)), name_(std::move(name)) {}

  // The buffered bytes from the current position: at least `n` unless the stream ends first.
  std::span<const std::uint8_t> peek(std::size_t n);
  void consume(std::size_t n);

  std::uint64_t offset() const { return consumed_; }  // bytes consumed so far
  const std::string& name() const { return name_; }

 private:
  static constexpr std::size_t kReadSize = std::size_t{1} << 20;

  std::unique_ptr<ByteSource> source_;
  std::string name_;
  std::vector<std::uint8_t> buffer_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  std::uint64_t consumed_ = 0;
  bool eof_ = false;
};

}  // namespace rtrace::apitrace
