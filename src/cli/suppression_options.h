// The leak suppression options `rtrace report` and `rtrace process` share: --suppressions FILE
// (repeatable: the user's LeakSanitizer-format rules) and --no-default-suppressions (leave out
// the file shipped with rtrace, filters/default.supp).
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "filters/suppression_rules.h"

namespace rtrace::cli {

struct SuppressionOptions {
  std::vector<std::string> files;  // the user's, in the order given
  bool defaults = true;            // apply the shipped file
};

void add_suppression_options(CLI::App& app, SuppressionOptions& options);

// The rules to apply: the shipped file's first (credited to "default.supp"), then the user's
// files'. Throws std::runtime_error naming the file (and line) that cannot be read or parsed;
// warnings (rules of other kinds) go to standard error unless `quiet`. Null when there are no
// rules at all.
std::shared_ptr<const SuppressionRules> load_suppressions(const SuppressionOptions& options,
                                                          bool quiet);

}  // namespace rtrace::cli
