#include "exports/pprof/gzip_bytes.h"

#include <zlib.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace rtrace::exporters {
namespace {

// zlib's window bits; +16 asks for a gzip header and trailer instead of zlib's.
constexpr int kGzipWindowBits = 15 + 16;
constexpr int kMemoryLevel = 8;

}  // namespace

std::string gzip_bytes(std::string_view bytes) {
  z_stream stream{};
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, kGzipWindowBits, kMemoryLevel,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("cannot start gzip compression");
  }
  std::string out;
  // zlib counts in uInt: feed the input in pieces it can take.
  constexpr std::size_t kPiece = std::numeric_limits<uInt>::max() / 2;
  char chunk[1 << 16];
  std::size_t fed = 0;
  int status = Z_OK;
  do {
    if (stream.avail_in == 0 && fed < bytes.size()) {
      const std::size_t piece = std::min(kPiece, bytes.size() - fed);
      // zlib's input pointer is not const-qualified; deflate only reads it.
      stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + fed));
      stream.avail_in = static_cast<uInt>(piece);
      fed += piece;
    }
    stream.next_out = reinterpret_cast<Bytef*>(chunk);
    stream.avail_out = sizeof chunk;
    status = deflate(&stream, fed == bytes.size() ? Z_FINISH : Z_NO_FLUSH);
    if (status == Z_STREAM_ERROR) {
      deflateEnd(&stream);
      throw std::runtime_error("gzip compression failed");
    }
    out.append(chunk, sizeof chunk - stream.avail_out);
  } while (status != Z_STREAM_END);
  deflateEnd(&stream);
  return out;
}

}  // namespace rtrace::exporters
