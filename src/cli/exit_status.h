// The commands' shared error convention (rtrace(1), EXIT STATUS): an error that ends a command
// is printed as `rtrace: <what>` and the command exits 1.
#pragma once

#include <fmt/format.h>

#include <cstdio>
#include <exception>

#include "io/terminal_text.h"

namespace rtrace::cli {

inline int report_error(const std::exception& error, int status = 1) {
  // Errors may quote the input (a name, a damaged string): no control character reaches the
  // terminal.
  fmt::print(stderr, "rtrace: {}\n", terminal_safe_lines(error.what()));
  return status;
}

// Runs `command` (returning an exit status); an exception becomes `rtrace: <what>`, status 1.
template <typename Command>
int run_reporting_errors(Command&& command) {
  try {
    return command();
  } catch (const std::exception& error) {
    return report_error(error);
  }
}

}  // namespace rtrace::cli
