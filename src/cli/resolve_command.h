// `rtrace resolve` and `sp-rtrace-resolve`: read a trace (any format), name its backtrace
// addresses, write the text protocol.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace rtrace::cli {

struct ResolveCommandOptions {
  std::string input = "-";
  std::string output;  // empty: standard output
  std::string root;
  bool full_path = false;
  bool keep_resolved = false;
  bool quiet = false;
  unsigned jobs = 0;  // threads that look addresses up; 0: one per core
  // The original's operation modes and lookup methods. Every mode runs the same cached
  // resolver; the method decides the form of the frames (see ResolveMethod).
  std::string mode = "full-cache";
  std::string method = "dwarf";
};

// Declares the options on `app` (the same for both command names).
void add_resolve_options(CLI::App& app, ResolveCommandOptions& options);

// Runs the resolver; returns the exit status.
int run_resolve(const ResolveCommandOptions& options);

// The subcommand table's entry point: declares the options on `app`, returns the command.
std::function<int()> setup_resolve(CLI::App& app);

}  // namespace rtrace::cli
