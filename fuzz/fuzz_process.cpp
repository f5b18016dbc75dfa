// `rtrace process -l -c`: any format, detected by content (compressed or not), through the leaks
// and compress stages, into the text writer.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<rtrace::StageSpec> stages{{"leaks", ""}, {"compress", ""}};
  rtrace::fuzz::process({data, size}, stages);
  return 0;
}
