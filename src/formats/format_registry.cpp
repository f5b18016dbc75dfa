#include "formats/format_registry.h"

#include <algorithm>
#include <array>
#include <string>

#include "formats/apitrace/apitrace_format.h"
#include "formats/compact/compact_format.h"
#include "formats/mpatrol/mpatrol_format.h"
#include "formats/sprtrace_binary/binary_format.h"
#include "formats/sprtrace_text/text_format.h"
#include "formats/stacktrack/trace_reader.h"

namespace rtrace {
namespace {

const auto kFormats = std::to_array<TraceFormatInfo>({
    sprtrace_binary_format(),
    sprtrace_text_format(),
    mpatrol_format(),
    apitrace_format(),
    stacktrack::trace_format(),
    compact_format(),
});

}  // namespace

bool starts_with(std::span<const std::uint8_t> head, std::string_view prefix) {
  return head.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), head.begin(),
                    [](char a, std::uint8_t b) { return static_cast<std::uint8_t>(a) == b; });
}

std::span<const TraceFormatInfo> trace_formats() {
  return kFormats;
}

const TraceFormatInfo* detect_format(std::span<const std::uint8_t> head) {
  for (const TraceFormatInfo& format : kFormats) {
    if (format.detect(head)) {
      return &format;
    }
  }
  return nullptr;
}

const TraceFormatInfo* detect_format(InputStream& input) {
  if (const TraceFormatInfo* format = detect_format(input.peek(kDetectBytes))) {
    return format;
  }
  for (const TraceFormatInfo& format : kFormats) {
    if (format.probe != nullptr && format.probe(input)) {
      return &format;
    }
  }
  return nullptr;
}

const TraceFormatInfo* find_format(std::string_view name) {
  for (const TraceFormatInfo& format : kFormats) {
    if (format.name == name) {
      return &format;
    }
  }
  return nullptr;
}

const TraceFormatInfo& read_trace(InputStream& input, TraceSink& sink, Diagnostics& diagnostics) {
  const TraceFormatInfo* format = detect_format(input);
  if (format != nullptr && format->read != nullptr) {
    try {
      format->read(input, sink, diagnostics);
    } catch (const InputError&) {
      input.report_truncation();  // the cause, when the file was cut short under the reader
      throw;
    }
    input.report_damage(diagnostics);
    return *format;
  }
  if (format != nullptr) {
    throw InputError(input.name(), 0,
                     "reading " + std::string(format->description) + "s is not supported yet");
  }
  if (input.at_end()) {
    input.report_damage(diagnostics);
    throw InputError(input.name(), 0, "empty input");
  }
  throw InputError(input.name(), 0, "not a trace in any format rtrace reads");
}

}  // namespace rtrace
