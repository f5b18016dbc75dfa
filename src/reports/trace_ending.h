// How a report speaks of the end of a trace: why it ended, and what the blocks still allocated
// at the end are. After an exit they are leaks; after tracing was toggled off they were only
// alive at that moment (the program went on and may well release them).
#pragma once

#include <string>
#include <string_view>

#include "reports/json_layout.h"
#include "reports/report_data.h"

namespace rtrace::reports {

// "exit", "_exit", "tracing toggled off", "signal 11 (SIGSEGV)", "exec".
std::string end_description(const TraceEnd& end);

// Whether tracing stopped while the program ran on (toggled off, or no space was left for the
// trace): what was alive then is not known to be leaked.
bool tracing_stopped_early(const ReportData& data);

// "leaked", or "alive when tracing stopped" for a trace ended by toggling.
std::string_view leak_wording(const ReportData& data);

// An object of the members `"command_line": [...] | null, "command_line_shell": "..." | null,
// "command_line_cut": bool, "trace_end": {...} | null, "incomplete": bool,
// "incomplete_message": "..." | null, "leaks_are": "leaked" | "alive when tracing stopped"`,
// for --json and --html.
Json trace_ending_json(const ReportData& data);

}  // namespace rtrace::reports
