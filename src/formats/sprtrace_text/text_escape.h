// Strings that come from a trace (context, module and process names, map paths, call names,
// argument texts, resource type names) printed into the text protocol.
//
// The protocol is line-based and a line's first characters say what record it is, so a string
// holding a line break could forge records: a context named "x\n1. malloc(1048576) = 0x1" would
// read back as a 1 MiB allocation the trace never held. The rule (documented in
// rtrace-process(1), TEXT OUTPUT): every byte below 0x20 other than TAB (the bytes the text reader
// refuses) prints as `\xHH`, two lower-case hex digits. In header values, which the original
// splits at commas, a comma prints as `\x2c` too. The escape is one way: the reader takes `\x0a`
// as the four characters it is, so the text never holds a record the input did not.
#pragma once

#include <string>
#include <string_view>

#include "formats/sprtrace_text/text_characters.h"

namespace rtrace::sprtrace_text {

// `text` with its line-breaking bytes (and, if `escape_commas`, its commas) escaped, built in
// `scratch`.
std::string_view escaped(std::string_view text, std::string& scratch, bool escape_commas);

// `text` as it may appear inside a record line: `text` itself when it needs no escape (the usual
// case, no copy), else its escaped form built in `scratch`. Inline: the writer asks once per call
// line, and the usual answer is a few instructions.
inline std::string_view printable(std::string_view text, std::string& scratch) {
  if (!has_control_character(text)) [[likely]] {
    return text;
  }
  return escaped(text, scratch, false);
}

// The same for a header value, where a comma is escaped as well.
std::string_view printable_header_value(std::string_view text, std::string& scratch);

}  // namespace rtrace::sprtrace_text
