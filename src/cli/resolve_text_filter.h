// Resolution of a text-protocol trace line by line, the way the original sp-rtrace-resolve
// works: every line is copied unchanged except the header (which gains the `resolve` filter)
// and the backtrace lines (`\t0x<address>`), which get the name of their address. Memory-map
// lines (`: /path => 0x<from>-0x<to>`) take effect for the lines after them.
//
// Going line by line keeps what a filter pipeline would rebuild differently: compressed groups
// in the order the input has them, summary comments, `##` lines where they stand.
#pragma once

#include "io/input_stream.h"
#include "io/output_stream.h"
#include "symbols/resolve_options.h"

namespace rtrace::cli {

void resolve_text_lines(InputStream& input, OutputStream& out,
                        const symbols::ResolveOptions& options);

}  // namespace rtrace::cli
