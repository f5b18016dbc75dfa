// The tracer's RTRACE_OPTIONS parser, which runs inside every traced program.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tracer/core/options.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);  // NUL-terminated copy
  const rtrace::tracer::TracerOptions options = rtrace::tracer::parse_options(text.c_str());
  if (options.depth > rtrace::tracer::TracerOptions::kMaxDepth ||
      options.size_count > rtrace::tracer::TracerOptions::kMaxSizes) {
    __builtin_trap();  // the parser must clamp what the tracer would index with
  }
  return 0;
}
