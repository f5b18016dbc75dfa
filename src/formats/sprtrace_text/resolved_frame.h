// The resolved part of a backtrace line: what follows `\t0x<address> `.
//
// Forms the tools print (NOTES.md): `fn() from /module` (symbol table), `fn() at file.c:42` (debug
// information), `from /module` (no symbol), `in ??` (outside every mapping), and the protocol
// document's `in fn() from /module` / `in fn() at file.c:42`. Function names may hold spaces,
// parentheses and template brackets, so the location separator is searched from the right.
//
// This is the only place that turns a Symbol into text and back: every other part of rtrace
// works on the structured Symbol.
#pragma once

#include <string>
#include <string_view>

#include "model/symbol.h"

namespace rtrace::sprtrace_text {

// Text that matches none of the forms is kept whole as a function name without location, which
// format_resolved_frame() prints back unchanged.
Symbol parse_resolved_frame(std::string_view text);

// The text printed after the address (without the separating space): the `at file:line` form
// when the symbol has a source file, else `from module`, else the bare function, else `in ??`.
std::string format_resolved_frame(const Symbol& symbol);
// The same text appended to `text` (a writer's own storage: no string of its own).
void append_resolved_frame(std::string& text, const Symbol& symbol);

}  // namespace rtrace::sprtrace_text
