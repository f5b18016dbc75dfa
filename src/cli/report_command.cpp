#include "cli/report_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <exception>

#include "cli/exit_status.h"
#include "exports/html_report.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "io/option_file.h"
#include "io/output_stream.h"
#include "io/progress.h"
#include "pipeline/pipeline.h"
#include "pipeline/tee_sink.h"
#include "reports/json_report.h"
#include "reports/report_builder.h"
#include "reports/text_report.h"

namespace rtrace::cli {
namespace {

// The report of one trace; `damage` receives what was wrong with a damaged input, whose report
// covers everything before the damage. `also`, when given, sees the same records (in one pass).
reports::ReportData build(const std::string& path, const ReportOptions& o,
                          const reports::Suppressions& suppressions, Diagnostics& diagnostics,
                          std::optional<InputError>& damage, TraceSink* also = nullptr) {
  reports::ReportBuilder builder(suppressions);
  std::optional<TeeSink> tee;
  TraceSink& sink =
      also == nullptr ? static_cast<TraceSink&>(builder) : tee.emplace(builder, *also);
  const std::unique_ptr<InputStream> input = open_input(path, Progress::shown_on_stderr(o.quiet));
  // Calls in index order whatever the input's layout; names make a report (and leak:function
  // suppressions) useful, and frames that arrive already resolved are kept as they are.
  std::vector<StageSpec> stages{{"expand", ""}};
  StageContext context;
  if (o.resolve) {
    stages.push_back({"resolve", ""});
    context.resolve.root = o.root;
    context.resolve.keep_resolved = true;
  }
  Pipeline pipeline(stages, context, sink);
  std::optional<InputError> read_damage = pipeline.run(*input, diagnostics);
  if (read_damage && !damage) {
    damage = std::move(read_damage);
  }
  return builder.data();
}

std::vector<std::string> inputs_of(const ReportOptions& o) {
  std::vector<std::string> inputs{o.input};
  if (o.diff) {
    inputs.push_back(*o.diff);
  }
  return inputs;
}

int report(const ReportOptions& o) {
  StderrDiagnostics diagnostics(o.quiet);
  reports::Suppressions suppressions;
  if (o.suppressions) {
    suppressions = reports::Suppressions::parse(read_option_file(*o.suppressions), *o.suppressions);
  }
  // The output is checked before the long read (a path that must not be written is refused).
  std::optional<OutputStream> html_out;
  if (o.html) {
    html_out.emplace(*o.html == "-" ? OutputStream() : OutputStream(*o.html, inputs_of(o)));
  }
  std::optional<InputError> damage;
  exporters::HtmlProfile profile;  // the timeline and flame graph of --html
  const reports::ReportData data =
      build(o.input, o, suppressions, diagnostics, damage, o.html ? &profile : nullptr);
  std::optional<reports::ReportDiff> diff;
  if (o.diff) {
    diff = reports::diff_reports(data, build(*o.diff, o, suppressions, diagnostics, damage));
  }

  const reports::RenderOptions render{.top = o.top};
  const reports::ReportDiff* shown_diff = diff ? &*diff : nullptr;
  if (html_out) {
    html_out->write(exporters::render_html_report(
        {.data = data, .profile = profile, .diff = shown_diff, .top = o.top}));
    html_out->commit();
  } else {
    const std::string text = o.json ? reports::render_json(data, shown_diff, render)
                                    : reports::render_text(data, shown_diff, render);
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() ||
        std::fflush(stdout) != 0) {
      throw std::runtime_error("cannot write the report to standard output");
    }
  }
  // Damaged input: the report of what came before the damage is out; now the damage.
  if (damage) {
    throw *damage;
  }
  return 0;
}

}  // namespace

void add_report_options(CLI::App& app, ReportOptions& o) {
  app.add_option("input,-i,--input-file", o.input, "Trace to report on (any format); - = stdin")
      ->option_text("PATH");
  app.add_option("--diff", o.diff, "Baseline trace: show what grew from it to the input")
      ->option_text("OTHER");
  app.add_option("--suppressions", o.suppressions,
                 "Leak suppressions, one leak:PATTERN per line (LeakSanitizer format)")
      ->option_text("FILE");
  app.add_option("-n,--top", o.top, "Entries per list")->option_text("N");
  auto* json = app.add_flag("--json", o.json, "JSON output for scripts");
  app.add_option("--html", o.html,
                 "Write a self-contained HTML report (timeline, flame graph, sortable tables) "
                 "to FILE instead; - = standard output")
      ->option_text("FILE")
      ->excludes(json);
  app.add_flag("-q,--quiet", o.quiet,
               "Do not print warnings about damaged input, nor a progress line");
  app.add_flag("!--no-resolve", o.resolve, "Show backtraces as raw addresses (faster)");
  app.add_option("-r,--root", o.root, "Look for modules and debug files under this sysroot")
      ->option_text("DIR");
  app.footer(
      "Exit status: 0 success, 1 unreadable or corrupt input, a bad suppression file or a\n"
      "write error, 2 bad options.");
}

int run_report(const ReportOptions& options) {
  return run_reporting_errors([&] { return report(options); });
}

std::function<int()> setup_report(CLI::App& app) {
  auto options = std::make_shared<ReportOptions>();
  add_report_options(app, *options);
  return [options] { return run_report(*options); };
}

}  // namespace rtrace::cli
