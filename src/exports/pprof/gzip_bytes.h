// Bytes compressed as one gzip member (RFC 1952): pprof profiles are stored gzipped.
#pragma once

#include <string>
#include <string_view>

namespace rtrace::exporters {

// Throws std::runtime_error when zlib fails (out of memory).
std::string gzip_bytes(std::string_view bytes);

}  // namespace rtrace::exporters
