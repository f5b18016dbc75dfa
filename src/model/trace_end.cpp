// The names of the reasons a trace ends, shared by the text protocol and the reports.
#include <array>
#include <utility>

#include "model/records.h"

namespace rtrace {
namespace {

constexpr std::array<std::pair<EndReason, std::string_view>, 6> kReasonNames = {{
    {EndReason::Exit, "exit"},
    {EndReason::ToggleOff, "toggle-off"},
    {EndReason::FastExit, "_exit"},
    {EndReason::Signal, "signal"},
    {EndReason::Exec, "exec"},
    {EndReason::NoSpace, "no-space"},
}};

}  // namespace

std::string_view end_reason_name(EndReason reason) {
  for (const auto& [value, name] : kReasonNames) {
    if (value == reason) {
      return name;
    }
  }
  return "unknown";
}

std::optional<EndReason> end_reason_from_name(std::string_view name) {
  for (const auto& [value, known] : kReasonNames) {
    if (known == name) {
      return value;
    }
  }
  return std::nullopt;
}

}  // namespace rtrace
