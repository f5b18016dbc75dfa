#include "reports/trace_ending.h"

#include <fmt/format.h>

#include <charconv>
#include <cstring>

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
    case EndReason::NoSpace:
      return "no space left on device for the trace (tracing stopped there; the program ran on)";
    case EndReason::Signal:
      break;
  }
  const char* name = end.signal < 65 ? sigabbrev_np(static_cast<int>(end.signal)) : nullptr;
  return name == nullptr ? fmt::format("signal {}", end.signal)
                         : fmt::format("signal {} (SIG{})", end.signal, name);
}

bool tracing_stopped_early(const ReportData& data) {
  return data.end &&
         (data.end->reason == EndReason::ToggleOff || data.end->reason == EndReason::NoSpace);
}

std::string_view leak_wording(const ReportData& data) {
  if (data.range) {
    return "alive at the range's end";
  }
  return tracing_stopped_early(data) ? "alive when tracing stopped" : "leaked";
}

namespace {

// Seconds to the microsecond, as the number a JSON reader makes of "SECONDS.MICROS" (the
// decimal text parsed, not a sum of doubles, which may round differently).
double seconds_json(const TimeOfDay& time) {
  const std::string text = fmt::format("{}.{:06}", time.seconds, time.microseconds);
  double seconds = 0;
  std::from_chars(text.data(), text.data() + text.size(), seconds);
  return seconds;
}

}  // namespace

Json trace_ending_json(const ReportData& data) {
  Json members;
  members["command_line"] = nullptr;
  members["command_line_shell"] = nullptr;
  if (data.command_line) {
    Json arguments = Json::array();
    for (const std::string& argument : data.command_line->arguments) {
      arguments.push_back(json_text(argument));
    }
    members["command_line"] = std::move(arguments);
    members["command_line_shell"] = json_text(quote_command_line(data.command_line->arguments));
  }
  members["command_line_cut"] = data.command_line && data.command_line->cut;
  members["trace_end"] = nullptr;
  if (data.end) {
    const TraceEnd& e = *data.end;
    Json end;
    end["reason"] = json_text(end_reason_name(e.reason));
    end["signal"] = e.signal;
    end["description"] = json_text(end_description(e));
    end["time"] = seconds_json(e.time);
    end["peak_rss_bytes"] = e.peak_rss_bytes;
    end["rss_bytes"] = e.rss_bytes;
    members["trace_end"] = std::move(end);
  }
  members["incomplete"] = data.incomplete;
  members["incomplete_message"] = data.incomplete ? json_text(kIncompleteTrace) : Json(nullptr);
  members["leaks_are"] = json_text(leak_wording(data));
  return members;
}

}  // namespace rtrace::reports
