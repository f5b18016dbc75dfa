// `rtrace stacktrack`: Boost StackTrack raw event files. `expand` prints them as the StackTrack
// tool expand_events does (one XML element per entry), or prints the layout in use.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace rtrace::cli {

struct StackTrackOptions {
  std::string input;        // the raw event file; "-" for standard input
  std::string format_file;  // a RAW_FORMAT description; empty: the default layout
  bool show_format = false;
  bool raw_times = false;
  bool quiet = false;
  bool strict = false;
};

// Declares the `expand` subcommand and its options on `app` (the `stacktrack` subcommand).
void add_stacktrack_options(CLI::App& app, StackTrackOptions& options);

// Runs what was asked; returns the exit status.
int run_stacktrack(const StackTrackOptions& options);

// The subcommand table's entry point: declares the options on `app`, returns the command.
std::function<int()> setup_stacktrack(CLI::App& app);

}  // namespace rtrace::cli
