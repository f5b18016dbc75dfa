// JSON string literals for every JSON rtrace writes (report --json, apitrace info, the Chrome
// export): one quoting rule, so that no writer can emit invalid JSON.
#pragma once

#include <string>
#include <string_view>

namespace rtrace {

// `text` as a quoted JSON string. Quotes, backslashes and control characters are escaped.
// Traces carry names in no particular encoding: valid UTF-8 passes through unchanged, and every
// byte that is not part of a valid UTF-8 sequence is written as the code point of the same
// value (\u0080 to \u00ff, as if the text were Latin-1), so the output is always valid JSON.
std::string json_string(std::string_view text);

}  // namespace rtrace
