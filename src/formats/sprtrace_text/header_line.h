// The first line of a text trace: `key=value, ` pairs (NOTES.md lists the keys and their order).
#pragma once

#include <string_view>

#include "model/records.h"

namespace rtrace::sprtrace_text {

// Metadata the text reader leaves on the header for the text writer.
// The header's timestamp verbatim, so that text -> text never depends on the local time zone.
inline constexpr std::string_view kTimestampKey = "sprtrace.timestamp";
// The header's version= field.
inline constexpr std::string_view kTextVersionKey = "sprtrace.text_version";
// Present when the trace was read from the text protocol: the original post-processor then
// keeps its `##` lines (modules, heap information) as comments, after the memory maps.
inline constexpr std::string_view kReadFromTextKey = "sprtrace.read_from_text";

struct HeaderFields {
  TraceHeader header;
  ProcessInfo process;
};

bool is_header_line(std::string_view line);

// Fills `fields` from a header line; returns an error message, empty on success. The timestamp
// is kept verbatim (kTimestampKey) and also read as local time into ProcessInfo::start.
std::string_view parse_header_line(std::string_view line, HeaderFields& fields);

}  // namespace rtrace::sprtrace_text
