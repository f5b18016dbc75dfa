// `rtrace report`: a summary of any trace for people (text, or an HTML page with --html) or
// scripts (--json).
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli/suppression_options.h"
#include "model/call_range.h"

namespace rtrace::cli {

struct ReportOptions {
  // Traces or directories of traces; none: standard input (never a terminal).
  std::vector<std::string> inputs;
  bool newest = false;                // a directory stands for its newest trace only
  std::optional<std::string> diff;    // the baseline trace
  SuppressionOptions suppressions;    // the shipped rules and the user's
  std::vector<std::string> wrappers;  // the program's allocation wrappers (globs)
  std::size_t top = 10;
  // The text's caller trees leave out callers under this share of their site (none: default).
  std::optional<double> callers_min_share;
  bool json = false;
  std::optional<std::string> html;  // write the HTML report to this file instead
  // The page's flame graph leaves out nodes under this share of every weight (none: the default).
  std::optional<double> html_min_share;
  CallRange range;  // --from/--to: the stretch of the trace reported on
  bool quiet = false;
  // C++ template arguments are left out of names unless --full-templates (--short-templates, the
  // former way to ask for it, is still accepted).
  bool full_templates = false;
  bool short_templates = false;
  // The call-tree views (--bottom-up, --top-down, --function) and their weight and limits.
  bool bottom_up = false;
  bool top_down = false;
  std::string function;  // an ECMAScript regex; empty: no callers and callees section
  std::string weight = "peak";
  std::size_t depth = 12;
  std::size_t sub_limit = 5;
  // The leak kinds whose sites LEAKS BY KIND lists (definite,indirect,possible,reachable or all).
  std::string leak_kinds = "all";
  // Name backtrace addresses (debug information, else symbol tables) before reporting.
  bool resolve = true;
  std::string root;  // sysroot for a trace taken on another system
};

void add_report_options(CLI::App& app, ReportOptions& options);

// Prints the report on standard output; returns the exit status.
int run_report(const ReportOptions& options);

// The subcommand table's entry point: declares the options on `app`, returns the command.
std::function<int()> setup_report(CLI::App& app);

}  // namespace rtrace::cli
