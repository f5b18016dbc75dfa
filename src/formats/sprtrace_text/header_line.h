// The first line of a text trace: `key=value, ` pairs (NOTES.md lists the keys and their order).
#pragma once

#include <string_view>

#include "model/records.h"

namespace rtrace::sprtrace_text {

struct HeaderFields {
  Handshake handshake;
  ProcessInfo process;
  bool compressed = false;  // `filter=` names compress: calls are grouped, not in index order
};

bool is_header_line(std::string_view line);

// Fills `fields` from a header line; returns an error message, empty on success. The timestamp
// is kept verbatim (ProcessInfo::start_text) and also read as local time into
// ProcessInfo::start. `compress` is not kept: the reader expands compressed groups.
std::string_view parse_header_line(std::string_view line, HeaderFields& fields);

}  // namespace rtrace::sprtrace_text
