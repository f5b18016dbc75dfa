#include "cli/report_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cli/exit_status.h"
#include "cli/standard_input_once.h"
#include "cli/time_range_options.h"
#include "exports/html_report.h"
#include "exports/pprof/profile_series_chart.h"
#include "filters/leak_kinds_filter.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "io/json_string.h"
#include "io/output_stream.h"
#include "io/progress.h"
#include "pipeline/pipeline.h"
#include "pipeline/tee_sink.h"
#include "reports/cost_weight.h"
#include "reports/json_report.h"
#include "reports/report_builder.h"
#include "reports/report_inputs.h"
#include "reports/text_report.h"

namespace rtrace::cli {
namespace {

// The options of the HTML page's tables: names whole, since the page shortens them itself (its
// switch).
reports::RenderOptions whole_names(reports::RenderOptions options) {
  options.short_templates = false;
  return options;
}

// The report of one trace; `damage` receives what was wrong with a damaged input, whose report
// covers everything before the damage. `also`, when given, sees the same records (in one pass).
reports::ReportData build(const std::string& path, const ReportOptions& o,
                          const std::shared_ptr<const SuppressionRules>& suppressions,
                          Diagnostics& diagnostics, std::optional<InputError>& damage,
                          TraceSink* also = nullptr) {
  reports::ReportBuilder builder(suppressions);
  if (!o.range.whole()) {
    builder.set_range(o.range);
  }
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
  reports::ReportData data = std::move(builder).take_data();
  // The pagemap module's files lie beside the trace.
  data.pagemap =
      reports::read_pagemap_attachments(data.attachments, reports::attachment_directory(path));
  return data;
}

void write_out(const std::string& text) {
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) {
    throw std::runtime_error("cannot write the report to standard output");
  }
}

// A bad combination of inputs: `rtrace: report: ...`, status 2 (as bad options).
int usage_error(const std::string& what) {
  fmt::print(stderr, "rtrace: report: {}\n", what);
  constexpr int kBadOptions = 2;
  return kBadOptions;
}

class Reporter {
 public:
  Reporter(const ReportOptions& o, std::optional<std::string> baseline)
      : o_(o), baseline_(std::move(baseline)), diagnostics_(o.quiet) {
    suppressions_ = load_suppressions(o.suppressions, o.quiet);
    render_ = {.top = o.top,
               .wrappers = o.wrappers,
               .short_templates = !o.full_templates,
               .callers_min_share = o.callers_min_share.value_or(reports::kDefaultCallersMinShare),
               .trees = {.weight = reports::cost_weight_named(o.weight).value(),
                         .bottom_up = o.bottom_up,
                         .top_down = o.top_down,
                         .function = o.function,
                         .depth = o.depth,
                         .children = o.sub_limit},
               .leak_kinds = parse_leak_kinds(o.leak_kinds)};
  }

  // The report of `path` (with the diff against the baseline, if any), rendered; the damage of
  // a damaged input in `damage`.
  std::string report(const std::string& path, std::optional<InputError>& damage) {
    const reports::ReportData& data =
        latest_.emplace(build(path, o_, suppressions_, diagnostics_, damage));
    std::optional<reports::ReportDiff> diff;
    if (baseline_) {
      diff =
          reports::diff_reports(data, build(*baseline_, o_, suppressions_, diagnostics_, damage));
    }
    const reports::ReportDiff* shown_diff = diff ? &*diff : nullptr;
    if (o_.json) {
      return reports::render_json(data, shown_diff, render_);
    }
    // Nothing read before the damage (an empty file, not a trace): the error alone says it, not
    // a report of empty sections before it.
    if (damage && data.calls == 0 && data.process.empty() && shown_diff == nullptr) {
      return "";
    }
    return reports::render_text(data, shown_diff, render_);
  }

  // The report of `path` as one HTML page (--html), with the timeline and flame graph that only
  // the page shows.
  std::string html(const std::string& path, std::optional<InputError>& damage) {
    exporters::HtmlProfile profile;
    const reports::ReportData data = build(path, o_, suppressions_, diagnostics_, damage, &profile);
    std::optional<reports::ReportDiff> diff;
    if (baseline_) {
      diff =
          reports::diff_reports(data, build(*baseline_, o_, suppressions_, diagnostics_, damage));
    }
    return exporters::render_html_report(
        {.data = data,
         .profile = profile,
         .diff = diff ? &*diff : nullptr,
         .tables = whole_names(render_),
         .min_share = o_.html_min_share.value_or(exporters::HtmlProfile::kDefaultMinShare)});
  }

 private:
  const ReportOptions& o_;
  std::optional<std::string> baseline_;  // --diff's trace
  StderrDiagnostics diagnostics_;
  std::shared_ptr<const SuppressionRules> suppressions_;  // null: none
  reports::RenderOptions render_;
  // The latest report's data, kept after its rendering so that a run of one trace can leave
  // without taking it apart (a description per distinct frame: 6 % of a large report's
  // instructions).
  std::optional<reports::ReportData> latest_;
};

// One trace named on the command line: its report alone, as it always was.
int report_one(Reporter& reporter, const std::string& path) {
  std::optional<InputError> damage;
  write_out(reporter.report(path, damage));
  // Damaged input: the report of what came before the damage is out; now the damage.
  if (damage) {
    throw *damage;
  }
  // Everything is written (write_out flushed it): leave without freeing the report.
  std::fflush(nullptr);
  std::_Exit(0);
}

// One trace as an HTML page into `out` (opened before the long read, so that a path that must not
// be written is refused first).
int report_html(Reporter& reporter, const std::string& path, OutputStream& out) {
  std::optional<InputError> damage;
  out.write(reporter.html(path, damage));
  out.commit();
  if (damage) {
    throw *damage;
  }
  return 0;
}

// Several traces (or a directory): each trace's report in turn, headed by its name; a damaged
// trace's error follows its report and the next trace is still reported.
int report_many(Reporter& reporter, const reports::ReportInputs& inputs, bool json) {
  int status = 0;
  if (json) {
    std::string notes;
    for (const std::string& note : inputs.notes) {
      notes += (notes.empty() ? "" : ", ") + json_string(note);
    }
    write_out(fmt::format("{{\"inputs\": [{}],\n\"traces\": [\n", notes));
  } else {
    for (const std::string& note : inputs.notes) {
      write_out(fmt::format("rtrace report: {}\n", note));
    }
  }
  for (std::size_t i = 0; i < inputs.traces.size(); ++i) {
    const std::string& path = inputs.traces[i];
    std::optional<InputError> damage;
    const std::string report = reporter.report(path, damage);
    if (json) {
      write_out(fmt::format("{}{{\"trace\": {}, \"report\": {}}}", i == 0 ? "" : ",\n",
                            json_string(path), report.substr(0, report.size() - 1)));
    } else {
      write_out(
          fmt::format("\n== {} ({} of {}) ==\n{}", path, i + 1, inputs.traces.size(), report));
    }
    if (damage) {
      status = report_error(*damage);
    }
  }
  if (json) {
    write_out("\n]}\n");
  }
  return status;
}

// Every file the command reads, named as the user gave it: standard input can be one of them.
std::vector<FileOption> file_options(const std::vector<std::string>& traces,
                                     const ReportOptions& o) {
  std::vector<FileOption> files;
  files.reserve(traces.size() + 1 + o.suppressions.files.size());
  for (const std::string& trace : traces) {
    files.push_back({"TRACE", trace});
  }
  files.push_back({"--diff", o.diff ? std::string_view(*o.diff) : ""});
  for (const std::string& rules : o.suppressions.files) {
    files.push_back({"--suppressions", rules});
  }
  return files;
}

// The chart of the pprof profiles among the inputs (rtrace record --profile-every's series), in
// front of the reports of the traces among them.
// The reports of the traces `paths` name (files, directories, "-").
int report_traces(const ReportOptions& o, const std::vector<std::string>& paths) {
  if (std::ranges::count(paths, "-") > 0 && ::isatty(STDIN_FILENO) == 1) {
    return usage_error(
        "no trace to read: name a trace or a directory of traces, or pipe a trace into "
        "standard input (rtrace report --help)");
  }
  if (const std::optional<std::string> twice = standard_input_twice(file_options(paths, o))) {
    return usage_error(*twice);
  }
  // With --diff a directory stands for its newest trace, on either side.
  reports::ReportInputs inputs = reports::expand_report_inputs(paths, o.newest || o.diff);
  std::optional<std::string> baseline;
  if (o.diff) {
    reports::ReportInputs old = reports::expand_report_inputs({*o.diff}, true);
    baseline = old.traces.front();
    for (std::string& note : old.notes) {
      inputs.notes.insert(inputs.notes.begin(), "baseline " + note);
    }
  }
  if (o.diff && inputs.traces.size() != 1) {
    return usage_error(
        fmt::format("--diff compares one trace with its baseline, and {} traces were given",
                    inputs.traces.size()));
  }
  if (!o.quiet) {
    for (const std::string& skipped : inputs.skipped) {
      if (exporters::is_pprof_profile(skipped)) {
        continue;  // charted in front of the reports
      }
      fmt::print(stderr, "rtrace: {}: not a trace, skipped\n", skipped);
    }
  }
  Reporter reporter(o, baseline);
  if (o.html) {
    if (inputs.traces.size() != 1) {
      return usage_error(fmt::format("--html writes the page of one trace, and {} were given",
                                     inputs.traces.size()));
    }
    std::vector<std::string> read = inputs.traces;
    if (baseline) {
      read.push_back(*baseline);
    }
    OutputStream out(*o.html, read);
    return report_html(reporter, inputs.traces.front(), out);
  }
  // A single trace named as such is reported exactly as before; a directory or several traces
  // get their names in the output.
  if (inputs.traces.size() == 1 && inputs.notes.empty()) {
    return report_one(reporter, inputs.traces.front());
  }
  return report_many(reporter, inputs, o.json);
}

int report_with_profiles(const ReportOptions& o, const std::vector<std::string>& profiles,
                         const std::vector<std::string>& traces) {
  if (!traces.empty() && (o.json || o.html || o.diff)) {
    return usage_error(
        "--json, --html and --diff take either traces or a series of pprof profiles: name the "
        "profiles or the traces alone");
  }
  const std::vector<exporters::SeriesPoint> series = exporters::read_profile_series(profiles);
  write_out(o.json ? exporters::series_chart_json(series) : exporters::series_chart_text(series));
  if (traces.empty()) {
    return 0;
  }
  write_out("\n");
  return report_traces(o, traces);
}

int report(const ReportOptions& o) {
  const std::vector<std::string> given =
      o.inputs.empty() ? std::vector<std::string>{"-"} : o.inputs;
  std::vector<std::string> paths;
  const std::vector<std::string> profiles = exporters::take_pprof_profiles(given, paths);
  return profiles.empty() ? report_traces(o, paths) : report_with_profiles(o, profiles, paths);
}

// A pattern std::regex refuses, refused with the options: before the trace is read.
std::string regex_error(const std::string& pattern) {
  try {
    const std::regex compiled(pattern);
  } catch (const std::regex_error& error) {
    return fmt::format("not a regular expression: '{}' ({})", pattern, error.what());
  }
  return {};
}

void add_call_tree_options(CLI::App& app, ReportOptions& o) {
  app.add_flag("--bottom-up", o.bottom_up,
               "Add the bottom-up view: each allocating function (self, inclusive), the paths "
               "of its callers beneath");
  app.add_flag("--top-down", o.top_down,
               "Add the top-down view: from the entry points down, inclusive and self");
  app.add_option("--function", o.function,
                 "Add the callers and callees of the functions this regex finds (the --top "
                 "most costly), with their costs")
      ->option_text("REGEX")
      ->check(regex_error);
  app.add_option("--weight", o.weight,
                 "What the views weigh: peak (bytes alive at the peak, the default), leaked, "
                 "allocated (bytes), allocations, temporary")
      ->option_text("WEIGHT")
      ->check(CLI::IsMember({"peak", "leaked", "allocated", "allocations", "temporary"}));
  app.add_option("--depth", o.depth, "Levels of the views' trees beneath each entry (default 12)")
      ->option_text("N");
  app.add_option("--sub-limit", o.sub_limit,
                 "Children per node of the views' trees (default 5); smaller ones count in "
                 "'... N more', as do those under --callers-min-share of their entry")
      ->option_text("N");
}

}  // namespace

void add_report_options(CLI::App& app, ReportOptions& o) {
  app.add_option("inputs,-i,--input-file", o.inputs,
                 "Traces (any format) or directories of traces; - or none = stdin")
      ->option_text("PATH...");
  app.add_flag("--newest", o.newest, "A directory stands for its newest trace only, not all");
  app.add_option("--diff", o.diff,
                 "Baseline trace (a directory: its newest): what grew from it to the input, frames "
                 "matched by module+offset or source line, not address")
      ->option_text("OLD");
  add_suppression_options(app, o.suppressions);
  app.add_option("--leak-kinds", o.leak_kinds,
                 "The leak kinds whose sites LEAKS BY KIND lists, as valgrind's "
                 "--show-leak-kinds: definite,indirect,possible,reachable or all (the default); "
                 "the LEAK SUMMARY counts every kind")
      ->option_text("KINDS")
      ->check([](const std::string& kinds) {
        try {
          parse_leak_kinds(kinds);
          return std::string();
        } catch (const std::invalid_argument& error) {
          return std::string(error.what());
        }
      });
  app.add_option("--wrapper", o.wrappers,
                 "A function (glob) wrapping the allocator, e.g. xmalloc or 'g_*alloc*': "
                 "allocation sites are its callers; repeatable")
      ->option_text("PATTERN")
      ->allow_extra_args(false);  // --wrapper X TRACE: TRACE is a trace, not a pattern
  auto* full = app.add_flag("--full-templates", o.full_templates,
                            "Keep C++ template arguments in names; by default the text and JSON "
                            "leave them out (std::vector<>::push_back)");
  app.add_flag("--short-templates", o.short_templates,
               "Leave C++ template arguments out of names (the default)")
      ->excludes(full);
  app.add_option("-n,--top", o.top, "Entries per list")->option_text("N");
  add_call_tree_options(app, o);
  app.add_option("--callers-min-share", o.callers_min_share,
                 "Leave out of the allocation sites' caller trees the callers under this share of "
                 "every amount of their site (default 0.01 = 1 %; 0 shows them all); they count "
                 "in '... N more caller(s)'")
      ->option_text("SHARE")
      ->check(CLI::Range(0.0, 1.0));
  auto* json = app.add_flag("--json", o.json, "JSON output for scripts");
  app.add_option("--html", o.html,
                 "Write a self-contained HTML report (timeline, flame graph, sortable tables) "
                 "to FILE instead; - = standard output")
      ->option_text("FILE")
      ->excludes(json);
  app.add_option("--html-min-share", o.html_min_share,
                 "With --html: leave out of the flame graph the frames under this share of every "
                 "weight of their type (default 0.001 = 0.1 %; 0 keeps them all); the page says "
                 "how many it left out")
      ->option_text("SHARE")
      ->check(CLI::Range(0.0, 1.0));
  add_time_range_options(app, o.range,
                         "the stretch reported on (text, --json, --html; the RANGE section says "
                         "what each figure covers)");
  app.add_flag("-q,--quiet", o.quiet,
               "Do not print warnings about damaged input, nor a progress line");
  app.add_flag("!--no-resolve", o.resolve, "Show backtraces as raw addresses (faster)");
  app.add_option("-r,--root", o.root, "Look for modules and debug files under this sysroot")
      ->option_text("DIR");
  app.footer(
      "Several traces, or a directory (every trace in it, or --newest), are reported one after\n"
      "the other, each headed by its path. Without a trace, standard input is read unless it is\n"
      "a terminal. --html writes the page of one trace.\n"
      "Leaks that rtrace's shipped suppressions (share/rtrace/default.supp: blocks runtimes keep\n"
      "for the life of the process) or --suppressions match are counted apart, as suppressed.\n"
      "Exit status: 0 success, 1 unreadable or corrupt input, a bad suppression file or a\n"
      "write error, 2 bad options or no input.");
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
