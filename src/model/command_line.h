// A command line as one line of text, the way a POSIX shell would take it back: arguments
// separated by one space, each quoted only when it needs to be ('it'\''s', $'\x1b[m' for control
// characters). The text protocol's `## command line:` line and the reports print this form;
// parse_command_line() reads it back exactly (a lossless round trip).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rtrace {

std::string quote_command_line(std::span<const std::string> arguments);

// The arguments of a line quote_command_line() wrote; nullopt when the quoting is broken.
std::optional<std::vector<std::string>> parse_command_line(std::string_view line);

}  // namespace rtrace
