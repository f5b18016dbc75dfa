// `rtrace process` and `sp-rtrace-postproc`: read any trace, apply filters, write text (or
// binary) protocol.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

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
};

// Declares the options on `app` (the same for both command names).
void add_process_options(CLI::App& app, ProcessOptions& options);

// Runs the post-processor; returns the exit status.
int run_process(const ProcessOptions& options);

}  // namespace rtrace::cli
