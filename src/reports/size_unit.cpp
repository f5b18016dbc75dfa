#include "reports/size_unit.h"

#include <string_view>

namespace rtrace::reports {

std::string size_unit(const ResourceType& type) {
  const std::string_view description = type.description;
  if (description.empty() || description.find("byte") != std::string_view::npos) {
    return "bytes";
  }
  if (type.type == "fd") {
    return "descriptors";
  }
  if (type.type == "fp") {
    return "streams";
  }
  std::string_view last = description;
  // "EGL image (handle)": the thing is the word before the remark in parentheses.
  if (last.ends_with(')') && last.find(" (") != std::string_view::npos) {
    last = last.substr(0, last.rfind(" ("));
  }
  const auto space = last.find_last_of(' ');
  if (space != std::string_view::npos) {
    last.remove_prefix(space + 1);
  }
  std::string unit(last);
  if (!unit.ends_with('s')) {
    unit += 's';
  }
  return unit;
}

}  // namespace rtrace::reports
