#include "cli/report_command.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <sstream>

#include "cli/exit_status.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "pipeline/pipeline.h"
#include "reports/json_report.h"
#include "reports/report_builder.h"
#include "reports/text_report.h"

namespace rtrace::cli {
namespace {

std::string read_whole(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw std::runtime_error(fmt::format("{}: {}", path, std::strerror(errno)));
  }
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// The report of one trace; `damage` receives what was wrong with a damaged input, whose report
// covers everything before the damage.
reports::ReportData build(const std::string& path, const ReportOptions& o,
                          const reports::Suppressions& suppressions, Diagnostics& diagnostics,
                          std::optional<InputError>& damage) {
  reports::ReportBuilder builder(suppressions);
  const std::unique_ptr<InputStream> input = open_input(path);
  // Calls in index order whatever the input's layout; names make a report (and leak:function
  // suppressions) useful, and frames that arrive already resolved are kept as they are.
  std::vector<StageSpec> stages{{"expand", ""}};
  StageContext context;
  if (o.resolve) {
    stages.push_back({"resolve", ""});
    context.resolve.root = o.root;
    context.resolve.keep_resolved = true;
  }
  Pipeline pipeline(stages, context, builder);
  std::optional<InputError> read_damage = pipeline.run(*input, diagnostics);
  if (read_damage && !damage) {
    damage = std::move(read_damage);
  }
  return builder.data();
}

int report(const ReportOptions& o) {
  StderrDiagnostics diagnostics(o.quiet);
  reports::Suppressions suppressions;
  if (o.suppressions) {
    suppressions = reports::Suppressions::parse(read_whole(*o.suppressions), *o.suppressions);
  }
  std::optional<InputError> damage;
  const reports::ReportData data = build(o.input, o, suppressions, diagnostics, damage);
  std::optional<reports::ReportDiff> diff;
  if (o.diff) {
    diff = reports::diff_reports(data, build(*o.diff, o, suppressions, diagnostics, damage));
  }

  const reports::RenderOptions render{.top = o.top};
  const reports::ReportDiff* shown_diff = diff ? &*diff : nullptr;
  const std::string text = o.json ? reports::render_json(data, shown_diff, render)
                                  : reports::render_text(data, shown_diff, render);
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) {
    throw std::runtime_error("cannot write the report to standard output");
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
  app.add_flag("--json", o.json, "JSON output for scripts");
  app.add_flag("-q,--quiet", o.quiet, "Do not print warnings about damaged input");
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
