#include "cli/time_range_options.h"

#include <stdexcept>

namespace rtrace::cli {
namespace {

// Parses an end into `bound`, and checks the range once both ends are known; CLI11 turns the
// exception into a usage error naming the option.
void set_bound(std::optional<CallBound>& bound, const CallRange& range, const std::string& text) {
  try {
    bound = parse_call_bound(text);
    range.check();
  } catch (const std::invalid_argument& error) {
    throw CLI::ValidationError(error.what());
  }
}

}  // namespace

void add_time_range_options(CLI::App& app, CallRange& range, const std::string& what) {
  app.add_option_function<std::string>(
         "--from", [&range](const std::string& text) { set_bound(range.from, range, text); },
         "Start of the range, " + what +
             ": seconds since the first call (2.5, 2.5s, 300ms) or a call index (@1200)")
      ->option_text("T");
  app.add_option_function<std::string>(
         "--to", [&range](const std::string& text) { set_bound(range.to, range, text); },
         "End of the range (included; default: the end of the trace)")
      ->option_text("T");
}

}  // namespace rtrace::cli
