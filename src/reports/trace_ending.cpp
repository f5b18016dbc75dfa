#include "reports/trace_ending.h"

#include <fmt/format.h>

#include <cstring>

#include "io/json_string.h"
#include "model/command_line.h"
#include "pipeline/completeness_check.h"

namespace rtrace::reports {

std::string end_description(const TraceEnd& end) {
  switch (end.reason) {
    case EndReason::Exit:
      return "exit";
    case EndReason::ToggleOff:
      return "tracing toggled off";
    case EndReason::FastExit:
      return "_exit";
    case EndReason::Exec:
      return "exec";
    case EndReason::Signal:
      break;
  }
  const char* name = end.signal < 65 ? sigabbrev_np(static_cast<int>(end.signal)) : nullptr;
  return name == nullptr ? fmt::format("signal {}", end.signal)
                         : fmt::format("signal {} (SIG{})", end.signal, name);
}

bool ended_by_toggle(const ReportData& data) {
  return data.end && data.end->reason == EndReason::ToggleOff;
}

std::string_view leak_wording(const ReportData& data) {
  return ended_by_toggle(data) ? "alive when tracing stopped" : "leaked";
}

std::string trace_ending_json(const ReportData& data) {
  std::string arguments = "null";
  if (data.command_line) {
    arguments = "[";
    for (const std::string& argument : data.command_line->arguments) {
      arguments += (arguments.size() > 1 ? ", " : "") + json_string(argument);
    }
    arguments += "]";
  }
  std::string end = "null";
  if (data.end) {
    const TraceEnd& e = *data.end;
    end = fmt::format(R"({{"reason": {}, "signal": {}, "description": {}, "time": {}.{:06}, )"
                      R"("peak_rss_bytes": {}, "rss_bytes": {}}})",
                      json_string(end_reason_name(e.reason)), e.signal,
                      json_string(end_description(e)), e.time.seconds, e.time.microseconds,
                      e.peak_rss_bytes, e.rss_bytes);
  }
  return fmt::format(
      R"("command_line": {}, "command_line_shell": {}, "command_line_cut": {}, )"
      R"("trace_end": {}, "incomplete": {}, "incomplete_message": {}, "leaks_are": {})",
      arguments,
      data.command_line ? json_string(quote_command_line(data.command_line->arguments)) : "null",
      data.command_line && data.command_line->cut ? "true" : "false", end,
      data.incomplete ? "true" : "false", data.incomplete ? json_string(kIncompleteTrace) : "null",
      json_string(leak_wording(data)));
}

}  // namespace rtrace::reports
