// `rtrace process` and `sp-rtrace-postproc`: read any trace, apply filters, write text (or
// binary) protocol.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "cli/suppression_options.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "io/output_stream.h"

namespace rtrace::cli {

struct ProcessOptions {
  std::string input = "-";
  // Empty: standard output. An existing directory: `<dir>/<pid>-<n>.rtrace.txt` as the original
  // names it. Anything else: that file.
  std::string output;
  std::string output_format = "text";
  bool quiet = false;
  bool strict = false;

  // The original post-processor's filters.
  bool leaks = false;
  bool compress = false;
  bool resolve = false;
  bool remove_args = false;
  std::optional<std::string> sort;
  std::optional<std::string> context_mask;
  std::optional<std::string> resource_mask;
  std::optional<std::uint32_t> backtrace_depth;
  std::optional<std::string> include_file;
  std::optional<std::string> exclude_file;
  std::optional<std::string> call_address;
  // --leak-kinds (rtrace process only): with -l, the leak check's kinds to keep.
  std::optional<std::string> leak_kinds;

  // -l's leak suppressions (rtrace process only: sp-rtrace-postproc writes what the original
  // wrote), and the rules loaded from them (null: none), which the suppress stage applies.
  std::optional<SuppressionOptions> suppressions;
  std::shared_ptr<const SuppressionRules> suppression_rules;

  // sp-rtrace -P: the output holds the original protocol only (no `## command line:`,
  // `## trace end:` lines); no command-line option sets it.
  bool original_protocol = false;
};

// Declares the options on `app` (the same for both command names).
void add_process_options(CLI::App& app, ProcessOptions& options);

// Whether the options leave the calls before the leaks stage as they are, so that a format's
// leaks scan (TraceFormatInfo::scan_leaks) can decide what leaks: -l without -C, -R, --include,
// --exclude, --call-address. RTRACE_NO_FAST_PATH=1 in the environment says no (tests and
// benchmarks compare the scan with the general path).
bool leaks_scan_applies(const ProcessOptions& options);

// Runs the post-processor; returns the exit status.
int run_process(const ProcessOptions& options);

// The subcommand table's entry point: declares the options on `app`, returns the command.
std::function<int()> setup_process(CLI::App& app);

// One trace through the stages the options ask for into their export, in `out` (not committed).
// Returns the input's damage, if any, after everything before it was written; `pid` and `name`
// (if given) receive the traced process id and name (argv[0]). Throws StageOptionError for bad
// options.
std::optional<InputError> process_stream(const ProcessOptions& options, InputStream& input,
                                         OutputStream& out, Diagnostics& diagnostics,
                                         std::uint32_t* pid = nullptr, std::string* name = nullptr);

}  // namespace rtrace::cli
