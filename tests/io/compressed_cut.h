// Compressed test inputs whose damage lies at a known place: the data is compressed with a flush
// after its first `keep` bytes, and the compressed stream is cut right after that flush, so that
// everything before the cut decompresses to exactly data[0, keep).
#pragma once

#include <string>

namespace rtrace::test {

// gzip: the cut stream, `keep` bytes decompressible, no end marker.
std::string gzip_cut(const std::string& data, std::size_t keep);
// zstd: the same within one frame.
std::string zstd_cut(const std::string& data, std::size_t keep);

}  // namespace rtrace::test
