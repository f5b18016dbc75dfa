// Runs the apitrace reader over bytes in memory, as `rtrace apitrace dump` would print them.
#pragma once

#include <string>

#include "formats/apitrace/call_dumper.h"
#include "formats/apitrace/decoder.h"

namespace rtrace::apitrace::test {

struct DumpResult {
  std::string text;      // what dump printed (properties and calls)
  std::string warnings;  // Diagnostics warnings
  std::string error;     // the InputError that ended reading, if any
  std::size_t calls = 0;
};

// Dumps a whole trace file image (container included).
DumpResult dump_bytes(const std::string& file, const DumpOptions& options = {},
                      const DecoderLimits& limits = {});

}  // namespace rtrace::apitrace::test
