// The resolved part of a backtrace line: what follows `\t0x<address> `.
//
// Forms the tools print (NOTES.md): `fn() from /module` (symbol table), `fn() at file.c:42` (debug
// information), `from /module` (no symbol), `in ??` (outside every mapping), and the protocol
// document's `in fn() from /module` / `in fn() at file.c:42`. Function names may hold spaces,
// parentheses and template brackets, so the location separator is searched from the right.
#pragma once

#include <string>
#include <string_view>

#include "model/records.h"

namespace rtrace::sprtrace_text {

// Text that matches none of the forms is kept whole as a function name without location, which
// format_resolved_frame() prints back unchanged.
SymbolInfo parse_resolved_frame(std::string_view text);

// The text printed after the address (without the separating space); empty when `symbol` says
// nothing.
std::string format_resolved_frame(const SymbolInfo& symbol);

}  // namespace rtrace::sprtrace_text
