// `rtrace export FORMAT`: any trace (any format the format table reads) written as a file other
// tools open: folded stacks, a flame graph SVG, a Graphviz call graph, valgrind massif, Chrome
// trace-event JSON, a pprof profile (every export of the export table).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "model/call_range.h"

namespace rtrace::cli {

struct ExportCommandOptions {
  std::string format;
  std::string input = "-";
  std::string output;         // empty: standard output
  std::string weight;         // folded, flamegraph, callgraph: leaked|allocated|peak|count
  std::string resource_type;  // empty: the first type that allocates
  bool quiet = false;
  // Name frames (debug information, else symbol tables) first, as `rtrace report` does.
  bool resolve = true;
  std::string root;  // sysroot for a trace taken on another system
  CallRange range;   // --from/--to, for the exports that show a stretch of the trace (pprof)
  // massif's --max-snapshots, --detailed-freq, --threshold; chrome's --max-events (unset: the
  // export's default). Each is refused by the other exports.
  std::optional<std::size_t> max_snapshots;
  std::optional<std::size_t> detailed_freq;
  std::optional<double> threshold_percent;
  std::optional<std::uint64_t> max_events;
};

void add_export_options(CLI::App& app, ExportCommandOptions& options);

// Writes the export; returns the exit status.
int run_export(const ExportCommandOptions& options);

// The subcommand table's entry point: declares the options on `app`, returns the command.
std::function<int()> setup_export(CLI::App& app);

}  // namespace rtrace::cli
