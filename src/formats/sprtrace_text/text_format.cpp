#include "formats/sprtrace_text/text_format.h"

#include "formats/sprtrace_text/text_reader.h"
#include "formats/sprtrace_text/text_writer.h"

namespace rtrace {

TraceFormatInfo sprtrace_text_format() {
  return {
      .name = "text",
      .description = "sp-rtrace text trace",
      .suffix = ".rtrace.txt",
      .detect = [](std::span<const std::uint8_t> head) { return starts_with(head, "version="); },
      .read = read_sprtrace_text,
      .open_writer = [](OutputStream& out,
                        const ExportOptions& options) -> std::unique_ptr<TraceSink> {
        return std::make_unique<TextWriter>(
            out, TextWriterOptions{.origin = options.origin,
                                   .preamble = options.keep_input_order ? PreambleOrder::AsRead
                                                                        : PreambleOrder::Original});
      },
      .losses = kLosesStartSubseconds | kLosesOutputSettings | kLosesThreads |
                kLosesSubmilliseconds | kLosesPartialSymbols,
  };
}

}  // namespace rtrace
