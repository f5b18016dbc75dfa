// One reader of the format table, fed without detection, so that every input reaches it. Built
// once per format, with RTRACE_FUZZ_FORMAT naming it (see fuzz/CMakeLists.txt).
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rtrace::fuzz::read_as_format(RTRACE_FUZZ_FORMAT, {data, size});
  return 0;
}
