#include "io/proc_maps_line.h"

#include <algorithm>
#include <charconv>

namespace rtrace {
namespace {

// The next field of `rest` (up to a space), taken off its front.
std::string_view next_field(std::string_view& rest) {
  const std::size_t start = rest.find_first_not_of(' ');
  if (start == std::string_view::npos) {
    rest = {};
    return {};
  }
  rest.remove_prefix(start);
  const std::size_t end = std::min(rest.find(' '), rest.size());
  const std::string_view field = rest.substr(0, end);
  rest.remove_prefix(end);
  return field;
}

bool parse_hex(std::string_view text, std::uint64_t& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  return error == std::errc() && end == text.data() + text.size() && !text.empty();
}

}  // namespace

std::optional<ProcMapsLine> parse_proc_maps_line(std::string_view line) {
  std::string_view rest = line;
  const std::string_view range = next_field(rest);
  const std::string_view permissions = next_field(rest);
  const std::string_view offset = next_field(rest);
  next_field(rest);  // device
  next_field(rest);  // inode
  const std::size_t dash = range.find('-');
  ProcMapsLine parsed;
  if (dash == std::string_view::npos || !parse_hex(range.substr(0, dash), parsed.start) ||
      !parse_hex(range.substr(dash + 1), parsed.end) || !parse_hex(offset, parsed.offset)) {
    return std::nullopt;
  }
  parsed.permissions = permissions;
  const std::size_t path = rest.find_first_not_of(' ');
  if (path != std::string_view::npos) {
    parsed.path = rest.substr(path);
  }
  return parsed;
}

}  // namespace rtrace
