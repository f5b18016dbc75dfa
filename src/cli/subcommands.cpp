#include "cli/subcommands.h"

#include <array>
#include <memory>

#include "cli/apitrace_command.h"
#include "cli/export_command.h"
#include "cli/mptrace_command.h"
#include "cli/process_command.h"
#include "cli/record_command.h"
#include "cli/report_command.h"
#include "cli/resolve_command.h"
#include "cli/stacktrack_command.h"

namespace rtrace::cli {
namespace {

// record's own files belong to the recorder; its setup lives here.
std::function<int()> setup_record(CLI::App& app) {
  auto options = std::make_shared<RecordOptions>();
  add_record_options(app, *options);
  return [options, &app] { return run_record(*options, app.remaining()); };
}

// One line per subcommand, in the order `rtrace --help` lists them.
const auto kSubcommands = std::to_array<Subcommand>({
    {"process", "Convert and filter a trace (any supported format) into the text protocol",
     setup_process},
    {"record", "Trace a program's memory from its start ([--] PROGRAM ARGS...), or toggle (-t PID)",
     setup_record},
    {"resolve", "Name backtrace addresses: function, source file and line (text protocol out)",
     setup_resolve},
    {"report",
     "Summarise traces: totals, peak, leaks, allocation sites and their callers, mismatched "
     "releases, temporaries, sizes, diffs",
     setup_report},
    {"export", "Write a trace for other tools: folded, flamegraph, callgraph, massif, chrome",
     setup_export},
    {"mptrace", "mpatrol's mptrace on an mpatrol tracing file: statistics, events, HATF",
     setup_mptrace},
    {"stacktrack", "Boost StackTrack raw event files: expand (as expand_events)", setup_stacktrack},
    {"apitrace", "Read apitrace traces: `dump` and `info` as apitrace prints them", setup_apitrace},
});

}  // namespace

std::span<const Subcommand> subcommands() {
  return kSubcommands;
}

}  // namespace rtrace::cli
