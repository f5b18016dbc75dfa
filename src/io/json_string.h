// JSON string literals for the JSON rtrace writes as text (apitrace info, the list of several
// reports): one quoting rule, so that no writer can emit invalid JSON. The reports and exports
// build their documents with a JSON library (reports/json_layout.h) and keep the same rule for
// bytes that are not UTF-8.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace rtrace {

// `text` as a quoted JSON string. Quotes, backslashes and control characters are escaped.
// Traces carry names in no particular encoding: valid UTF-8 passes through unchanged, and every
// byte that is not part of a valid UTF-8 sequence is written as the code point of the same
// value (\u0080 to \u00ff, as if the text were Latin-1), so the output is always valid JSON.
std::string json_string(std::string_view text);

// The length of the valid UTF-8 sequence that starts `text`, or 0 when it does not start one
// (stray continuation byte, overlong form, surrogate, beyond U+10FFFF, cut short).
std::size_t utf8_sequence_length(std::string_view text);

}  // namespace rtrace
