// `rtrace apitrace dump|info TRACE`: apitrace's own `dump` and `info` over rtrace's reader, with
// the same options and byte-identical output, for people and scripts switching from apitrace.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

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
  std::optional<std::string> calls;
  std::optional<std::string> grep;
  bool blobs = false;
  // info
  bool dump_frames = false;
};

// Adds `apitrace` with its `dump` and `info` subcommands to `app`; returns the `apitrace` app.
CLI::App* add_apitrace_command(CLI::App& app, ApitraceOptions& options);

// Runs the parsed subcommand of `apitrace_app`; returns the exit status.
int run_apitrace(const CLI::App& apitrace_app, const ApitraceOptions& options);

}  // namespace rtrace::cli
