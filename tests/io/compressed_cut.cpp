#include "compressed_cut.h"

#include <zlib.h>
#include <zstd.h>

#include <stdexcept>
#include <vector>

namespace rtrace::test {

std::string gzip_cut(const std::string& data, std::size_t keep) {
  z_stream stream{};
  // 15 window bits + 16: a gzip header.
  if (deflateInit2(&stream, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2");
  }
  std::vector<unsigned char> out(compressBound(static_cast<uLong>(data.size())) + 64);
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(keep);
  stream.next_out = out.data();
  stream.avail_out = static_cast<uInt>(out.size());
  if (deflate(&stream, Z_FULL_FLUSH) != Z_OK || stream.avail_in != 0) {
    throw std::runtime_error("deflate");
  }
  const std::size_t size = out.size() - stream.avail_out;
  deflateEnd(&stream);
  return std::string(reinterpret_cast<const char*>(out.data()), size);
}

std::string zstd_cut(const std::string& data, std::size_t keep) {
  ZSTD_CCtx* context = ZSTD_createCCtx();
  std::vector<char> out(ZSTD_compressBound(data.size()) + 64);
  ZSTD_inBuffer in{data.data(), keep, 0};
  ZSTD_outBuffer sink{out.data(), out.size(), 0};
  std::size_t left = 1;
  while (left != 0) {
    left = ZSTD_compressStream2(context, &sink, &in, ZSTD_e_flush);
    if (ZSTD_isError(left)) {
      throw std::runtime_error(ZSTD_getErrorName(left));
    }
  }
  ZSTD_freeCCtx(context);
  return std::string(out.data(), sink.pos);
}

}  // namespace rtrace::test
