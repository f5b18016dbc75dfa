#include "formats/apitrace/stream_window.h"

#include <algorithm>
#include <cstring>

namespace rtrace::apitrace {

std::span<const std::uint8_t> StreamWindow::peek(std::size_t n) {
  if (end_ - begin_ < n && !eof_) {
    // Move what is left to the front (less than `n` bytes), then read until `n` are there.
    if (end_ > begin_) {  // the buffer is still unallocated (null) before the first read
      std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    }
    end_ -= begin_;
    begin_ = 0;
    // Grows with what is asked for, which the decoder bounds; never with sizes from the file.
    buffer_.resize(std::max({buffer_.size(), n, kReadSize}));
    while (end_ < n && !eof_) {
      const std::size_t got = source_->read(std::span(buffer_).subspan(end_));
      eof_ = got == 0;
      end_ += got;
    }
  }
  return {buffer_.data() + begin_, end_ - begin_};
}

void StreamWindow::consume(std::size_t n) {
  n = std::min(n, end_ - begin_);
  begin_ += n;
  consumed_ += n;
}

}  // namespace rtrace::apitrace
