#include "cli/suppression_options.h"

#include <fmt/format.h>

#include <cstdio>

#include "filters/default_suppressions.h"
#include "io/option_file.h"

namespace rtrace::cli {

void add_suppression_options(CLI::App& app, SuppressionOptions& o) {
  app.add_option("--suppressions", o.files,
                 "Leak suppressions, one leak:PATTERN per line (LeakSanitizer's format), applied "
                 "with rtrace's own; repeatable")
      ->option_text("FILE")
      ->allow_extra_args(false);  // --suppressions X TRACE: TRACE is a trace, not a file
  app.add_flag("!--no-default-suppressions", o.defaults,
               "Show the blocks that runtimes keep for the process's lifetime (libstdc++'s "
               "exception pool, glibc's locale...) as leaks too");
}

std::shared_ptr<const SuppressionRules> load_suppressions(const SuppressionOptions& o, bool quiet) {
  auto rules = std::make_shared<SuppressionRules>();
  const auto warn = [quiet](std::string_view message) {
    if (!quiet) {
      fmt::print(stderr, "rtrace: warning: {}\n", message);
    }
  };
  if (o.defaults) {
    rules->add(read_option_file(default_suppressions_path()), kDefaultSuppressionsName, warn);
  }
  for (const std::string& file : o.files) {
    rules->add(read_option_file(file), file, warn);
  }
  if (rules->empty()) {
    return nullptr;
  }
  return rules;
}

}  // namespace rtrace::cli
