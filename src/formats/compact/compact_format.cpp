#include "formats/compact/compact_format.h"

#include <algorithm>

#include "formats/compact/compact_reader.h"
#include "formats/compact/compact_writer.h"
#include "protocol/compact_protocol.h"

namespace rtrace {

TraceFormatInfo compact_format() {
  return {
      .name = "compact",
      .description = "compact rtrace trace",
      .suffix = ".rtrace",
      .detect =
          [](std::span<const std::uint8_t> head) {
            return head.size() >= compact::kMagicSize &&
                   std::equal(
                       compact::kMagic, compact::kMagic + compact::kMagicSize, head.begin(),
                       [](char a, std::uint8_t b) { return static_cast<std::uint8_t>(a) == b; });
          },
      .read = read_compact,
      .open_writer = [](OutputStream& out, const ExportOptions& /*options*/)
          -> std::unique_ptr<TraceSink> { return std::make_unique<CompactWriter>(out); },
      .losses = kLosesSymbols | kLosesGroupsAndSummaries | kLosesNotes | kLosesThreads |
                kLosesCallIndices | kLosesEndTime,
      .late_maps = [](InputStream& input, const ReadAgain& read_again) -> std::vector<Mapping> {
        // Most traces have none: a walk over the records' lengths says so without decoding them.
        if (!compact_has_late_maps(input)) {
          return {};
        }
        const std::unique_ptr<InputStream> again = read_again();
        return again ? read_compact_late_maps(*again) : std::vector<Mapping>{};
      },
  };
}

}  // namespace rtrace
