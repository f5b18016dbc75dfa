// --from T / --to T: the stretch of a trace a command looks at, one definition for every command
// that takes one. T is a time since the trace's first call in seconds ("2.5", "2.5s") or with a
// unit ("300ms", "40us", "100ns"), or a call index after '@' ("@1200"); both ends belong to the
// range, either may be left out. A malformed T, or an end before the start, is a usage error.
#pragma once

#include <CLI/CLI.hpp>

#include "model/call_range.h"

namespace rtrace::cli {

// Declares --from and --to on `app`, filling `range` as they are parsed. `what` qualifies the
// start's help ("Start of the range, pprof only: ...").
void add_time_range_options(CLI::App& app, CallRange& range, const std::string& what);

}  // namespace rtrace::cli
