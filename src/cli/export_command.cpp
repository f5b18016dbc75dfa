#include "cli/export_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <vector>

#include "cli/exit_status.h"
#include "cli/time_range_options.h"
#include "cli/trace_input_option.h"
#include "exports/export_registry.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "io/output_stream.h"
#include "io/progress.h"
#include "pipeline/pipeline.h"
#include "rtrace/version.h"

namespace rtrace::cli {
namespace {

int export_trace(const ExportCommandOptions& o) {
  const std::optional<ExportInfo> info = find_export(o.format);
  if (!info) {
    throw StageOptionError(fmt::format("no export called '{}'", o.format));
  }
  if (!o.range.whole() && !info->time_range) {
    throw StageOptionError(fmt::format(
        "--from/--to: the {} export shows the whole trace (pprof takes a range)", o.format));
  }
  const bool massif = o.format == "massif";
  if (!massif && (o.max_snapshots || o.detailed_freq || o.threshold_percent)) {
    throw StageOptionError(fmt::format(
        "--max-snapshots, --detailed-freq and --threshold are massif's, not the {} export's",
        o.format));
  }
  if (o.max_events && o.format != "chrome") {
    throw StageOptionError(
        fmt::format("--max-events is the chrome export's, not the {} export's", o.format));
  }
  ExportOptions options{.origin = std::string(kOrigin),
                        .weight = o.weight,
                        .resource_type = o.resource_type,
                        .range = o.range,
                        .root = o.root};
  options.max_snapshots = o.max_snapshots.value_or(options.max_snapshots);
  options.detailed_freq = o.detailed_freq.value_or(options.detailed_freq);
  options.threshold_percent = o.threshold_percent.value_or(options.threshold_percent);
  options.max_events = o.max_events.value_or(options.max_events);
  // Calls in index order whatever the input's layout, frames named: the same view of the trace
  // as `rtrace report`, so the figures agree with it.
  std::vector<StageSpec> stages{{"expand", ""}};
  StageContext context;
  if (o.resolve) {
    stages.push_back({"resolve", ""});
    context.resolve.root = o.root;
    context.resolve.keep_resolved = true;
  }
  check_stages(stages, context);

  StderrDiagnostics diagnostics(o.quiet);
  const std::unique_ptr<InputStream> input =
      open_input(o.input, Progress::shown_on_stderr(o.quiet));
  OutputStream out = o.output.empty() ? OutputStream() : OutputStream(o.output, {o.input});
  const std::unique_ptr<TraceSink> writer = info->open(out, options);
  Pipeline pipeline(stages, context, *writer);
  const std::optional<InputError> damage = pipeline.run(*input, diagnostics);
  // Damaged input: the export of what came before the damage is written, then the damage.
  out.commit();
  if (damage) {
    throw *damage;
  }
  return 0;
}

}  // namespace

void add_export_options(CLI::App& app, ExportCommandOptions& o) {
  std::vector<std::string> names;
  for (const ExportInfo& info : exports()) {
    names.emplace_back(info.name);
  }
  app.add_option("format", o.format, "What to write")
      ->required()
      ->check(CLI::IsMember(names))
      ->option_text(fmt::format("{}", fmt::join(names, "|")));
  add_trace_input_option(app, o.input);
  app.add_option("-o,--output", o.output, "Output file (default: standard output)")
      ->option_text("PATH");
  app.add_option("-w,--weight", o.weight,
                 "What a stack weighs in folded, flamegraph and callgraph (default: allocated)")
      ->check(CLI::IsMember({"leaked", "allocated", "peak", "count"}))
      ->option_text("leaked|allocated|peak|count");
  app.add_option("--type", o.resource_type,
                 "Resource type shown by all but chrome (default: the first that allocates)")
      ->option_text("NAME");
  add_time_range_options(app, o.range, "pprof only");
  app.add_option("--max-snapshots", o.max_snapshots,
                 "massif: at most this many snapshots, the peak included (default: 100)")
      ->check(CLI::Range(10, 1000))
      ->option_text("N");
  app.add_option("--detailed-freq", o.detailed_freq,
                 "massif: every Nth snapshot is detailed, with its allocation tree (default: 10;"
                 " 1: all)")
      ->check(CLI::Range(1, 1000000))
      ->option_text("N");
  app.add_option("--threshold", o.threshold_percent,
                 "massif: tree entries below this percentage of a snapshot's bytes are summed"
                 " into one line (default: 1.0)")
      ->check(CLI::Range(0.0, 100.0))
      ->option_text("PERCENT");
  app.add_option("--max-events", o.max_events,
                 "chrome: write at most N call events and say how many were left out (default:"
                 " every call)")
      ->check(CLI::PositiveNumber)
      ->option_text("N");
  app.add_flag("-q,--quiet", o.quiet,
               "Do not print warnings about damaged input, nor a progress line");
  app.add_flag("!--no-resolve", o.resolve, "Keep backtraces as raw addresses (faster)");
  app.add_option("-r,--root", o.root, "Look for modules and debug files under this sysroot")
      ->option_text("DIR");
  std::string formats = "Formats:\n";
  for (const ExportInfo& info : exports()) {
    formats += fmt::format("  {:<11} {}\n", info.name, info.description);
  }
  app.footer(formats +
             "\nExit status: 0 success, 1 unreadable or corrupt input, an unknown --type or a\n"
             "write error, 2 bad options.");
}

int run_export(const ExportCommandOptions& options) {
  return run_reporting_errors([&] {
    try {
      return export_trace(options);
    } catch (const StageOptionError& error) {
      return report_error(error, 2);
    }
  });
}

std::function<int()> setup_export(CLI::App& app) {
  auto options = std::make_shared<ExportCommandOptions>();
  add_export_options(app, *options);
  return [options] { return run_export(*options); };
}

}  // namespace rtrace::cli
