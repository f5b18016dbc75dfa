#include "formats/sprtrace_binary/binary_format.h"

#include "formats/sprtrace_binary/binary_reader.h"
#include "formats/sprtrace_binary/binary_writer.h"
#include "formats/sprtrace_binary/leaks_scan/leaks_scan_read.h"
#include "protocol/sprtrace_packets.h"

namespace rtrace {

TraceFormatInfo sprtrace_binary_format() {
  return {
      .name = "binary",
      .description = "sp-rtrace binary trace",
      .suffix = ".rtrace",
      .detect =
          [](std::span<const std::uint8_t> head) {
            return !head.empty() && head[0] == sprtrace::kHandshakeId;
          },
      .read = read_sprtrace_binary,
      .open_writer = [](OutputStream& out, const ExportOptions& /*options*/)
          -> std::unique_ptr<TraceSink> { return std::make_unique<BinaryWriter>(out); },
      // The tracer's wire format: no packet for what post-processing adds.
      .losses = kLosesSymbols | kLosesHeapBlockRange | kLosesGroupsAndSummaries | kLosesNotes |
                kLosesThreads | kLosesSubmilliseconds | kLosesScopes | kLosesHistory |
                kLosesCallIndices | kLosesUnknownDepth,
      // The tracer sends the maps after every dlopen, also after calls.
      .late_maps = [](InputStream& input,
                      const ReadAgain& /*read_again*/) { return read_late_maps(input); },
      .scan_leaks = scan_sprtrace_binary_leaks,
  };
}

}  // namespace rtrace
