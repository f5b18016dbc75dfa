#include "formats/trace_format.h"

#include <algorithm>

namespace rtrace {
namespace {

bool starts_with(std::span<const std::uint8_t> head, std::string_view prefix) {
  return head.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), head.begin(),
                    [](char a, std::uint8_t b) { return static_cast<std::uint8_t>(a) == b; });
}

}  // namespace

TraceFormat detect_format(std::span<const std::uint8_t> head) {
  if (!head.empty() && head[0] == 0xF0) {
    return TraceFormat::SpRtraceBinary;
  }
  if (starts_with(head, "version=")) {
    return TraceFormat::SpRtraceText;
  }
  if (starts_with(head, "MTRC")) {
    return TraceFormat::Mpatrol;
  }
  if (starts_with(head, "at")) {
    return TraceFormat::Apitrace;
  }
  return TraceFormat::Unknown;
}

std::string_view format_name(TraceFormat format) {
  switch (format) {
    case TraceFormat::SpRtraceBinary:
      return "sp-rtrace binary";
    case TraceFormat::SpRtraceText:
      return "sp-rtrace text";
    case TraceFormat::Mpatrol:
      return "mpatrol";
    case TraceFormat::Apitrace:
      return "apitrace";
    case TraceFormat::StackTrack:
      return "StackTrack";
    case TraceFormat::Unknown:
      break;
  }
  return "unknown";
}

}  // namespace rtrace
