// `rtrace apitrace dump|info TRACE`: apitrace's own `dump` and `info` over rtrace's reader, with
// the same options and byte-identical output, for people and scripts switching from apitrace.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rtrace::cli {

struct ApitraceOptions {
  std::string trace;
  // dump
  std::string color = "auto";  // auto | always | never
  bool verbose = false;
  std::string thread_ids = "no";
  std::string call_nos = "yes";
  std::string arg_names = "yes";
  std::string multiline = "yes";
  std::vector<std::string> calls;  // each --calls, in order
  std::optional<std::string> grep;
  bool blobs = false;
  // info
  bool dump_frames = false;
};

// Declares the `dump` and `info` subcommands and their options on the `apitrace` app.
void add_apitrace_options(CLI::App& apitrace, ApitraceOptions& options);

// Runs the parsed subcommand of `apitrace_app`; returns the exit status.
int run_apitrace(const CLI::App& apitrace_app, const ApitraceOptions& options);

// The subcommand table's entry: declares the options, returns what runs the parsed command.
std::function<int()> setup_apitrace(CLI::App& app);

}  // namespace rtrace::cli
