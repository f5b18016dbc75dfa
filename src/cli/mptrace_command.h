// `rtrace mptrace`: mpatrol's mptrace tool on mpatrol tracing files (statistics, --verbose event
// table, --hatf-file, --sim-file), with its 64-bit decoding bugs fixed.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>

namespace rtrace::cli {

struct MptraceOptions {
  std::string trace = "mpatrol.trace";  // mptrace's default; - = standard input
  bool verbose = false;
  bool source = false;
  std::optional<std::string> hatf_file;  // "stdout" = standard output, as in mptrace
  std::optional<std::string> sim_file;
  bool strict = false;
  bool quiet = false;
};

void add_mptrace_options(CLI::App& app, MptraceOptions& options);

// Prints the report on standard output; returns the exit status.
int run_mptrace(const MptraceOptions& options);

// The subcommand table's entry (see subcommands.h): declares the options, returns the runner.
std::function<int()> setup_mptrace(CLI::App& app);

}  // namespace rtrace::cli
