#include "formats/read_trace.h"

#include <string>

#include "formats/sprtrace_binary/binary_reader.h"
#include "formats/sprtrace_text/text_reader.h"

namespace rtrace {

TraceFormat read_trace(InputStream& input, TraceSink& sink, Diagnostics& diagnostics) {
  const TraceFormat format = detect_format(input.peek(16));
  switch (format) {
    case TraceFormat::SpRtraceBinary:
      read_sprtrace_binary(input, sink, diagnostics);
      input.report_damage(diagnostics);
      return format;
    case TraceFormat::SpRtraceText:
      read_sprtrace_text(input, sink, diagnostics);
      input.report_damage(diagnostics);
      return format;
    case TraceFormat::Unknown:
      if (input.at_end()) {
        input.report_damage(diagnostics);
        throw InputError(input.name(), 0, "empty input");
      }
      throw InputError(input.name(), 0, "not a trace in any format rtrace reads");
    default:
      throw InputError(input.name(), 0,
                       std::string("reading ") + std::string(format_name(format)) +
                           " traces is not supported yet");
  }
}

}  // namespace rtrace
