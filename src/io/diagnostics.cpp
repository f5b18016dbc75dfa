#include "io/diagnostics.h"

#include <fmt/format.h>

#include <cstdio>

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
  fmt::print(stderr, "rtrace: {}:{}: warning: {}\n", file, position, message);
}

void CollectingDiagnostics::report(std::string_view file, std::uint64_t position,
                                   std::string_view message) {
  text_ += fmt::format("{}:{}: warning: {}\n", file, position, message);
}

}  // namespace rtrace
