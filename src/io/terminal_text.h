// Strings from a trace (function, file, module, process and resource names, the writer's notes)
// made safe to print as text that may reach a terminal: report's text, warnings on standard
// error, the folded, callgraph and massif exports.
//
// A trace is input like any other and may be hostile: an ESC sequence in a function name would
// set the window title, change colours or move the cursor when the report is printed. Every
// control character prints as `\xHH` (two lower-case hex digits, as in the text protocol): the
// C0 bytes below 0x20 except TAB, DEL (0x7f), the C1 controls encoded in UTF-8 (U+0080 to
// U+009F) and the bytes 0x80 to 0x9f that are not part of a valid UTF-8 sequence (which a
// terminal in an 8-bit mode takes as C1 controls, 0x9b as CSI). Everything else, valid UTF-8
// and Latin-1 letters included, passes unchanged.
#pragma once

#include <string>
#include <string_view>

namespace rtrace {

// `text` with its control characters escaped, line breaks included (a name holds none).
std::string terminal_safe(std::string_view text);

// The same for a whole document made of lines: its '\n' line breaks pass unchanged.
std::string terminal_safe_lines(std::string_view text);

// Whether `text` holds a character terminal_safe() escapes (then it copies; else `text` can be
// printed as it is).
bool needs_terminal_escape(std::string_view text);

}  // namespace rtrace
