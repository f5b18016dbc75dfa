#include "io/diagnostics.h"

#include <fmt/format.h>

#include <cstdio>

#include "io/terminal_text.h"

namespace rtrace {

InputError::InputError(std::string_view file, std::uint64_t position, std::string_view message)
    : std::runtime_error(fmt::format("{}:{}: {}", file, position, message)),
      file_(file),
      position_(position) {}

void Diagnostics::warning(std::string_view file, std::uint64_t position, std::string_view message) {
  ++warnings_;
  report(file, position, message);
}

void StderrDiagnostics::report(std::string_view file, std::uint64_t position,
                               std::string_view message) {
  if (quiet_) {
    return;
  }
  // Messages quote the trace (a writer's note, a name): no control character of it reaches the
  // terminal, and no line break forges another message.
  fmt::print(stderr, "rtrace: {}:{}: warning: {}\n", terminal_safe(file), position,
             terminal_safe(message));
}

void CollectingDiagnostics::report(std::string_view file, std::uint64_t position,
                                   std::string_view message) {
  text_ += fmt::format("{}:{}: warning: {}\n", file, position, message);
}

}  // namespace rtrace
