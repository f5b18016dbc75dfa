#include "cli/stacktrack_command.h"

#include <exception>
#include <memory>
#include <stdexcept>

#include "cli/exit_status.h"
#include "cli/standard_input_once.h"
#include "formats/stacktrack/default_layout.h"
#include "formats/stacktrack/event_decoder.h"
#include "formats/stacktrack/expand_writer.h"
#include "formats/stacktrack/layout_xml.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "io/output_stream.h"

namespace rtrace::cli {
namespace {

using stacktrack::EntrySchema;

stacktrack::RawLayout layout_in_use(const StackTrackOptions& o) {
  return o.format_file.empty() ? stacktrack::default_layout()
                               : stacktrack::load_layout_file(o.format_file);
}

// Everything decoded before damage is written before the damage is reported.
int expand(const StackTrackOptions& o, const EntrySchema& schema, OutputStream& out) {
  StderrDiagnostics diagnostics(o.quiet);
  const std::unique_ptr<InputStream> input = open_input(o.input);
  const stacktrack::ExpandWriter writer(schema, {.raw_times = o.raw_times});
  std::exception_ptr damage;
  try {
    stacktrack::EventDecoder decoder(*input, schema, diagnostics);
    while (const stacktrack::Entry* entry = decoder.next()) {
      writer.write(*entry, out.buffer());
      out.maybe_flush();
    }
  } catch (const InputError&) {
    damage = std::current_exception();
  }
  out.commit();
  if (damage) {
    std::rethrow_exception(damage);
  }
  return o.strict && diagnostics.warning_count() > 0 ? 1 : 0;
}

int run(const StackTrackOptions& o) {
  const stacktrack::RawLayout layout = layout_in_use(o);
  const EntrySchema schema(layout);
  OutputStream out;
  if (o.show_format) {
    out.write(stacktrack::layout_to_xml(schema.layout()));
    out.commit();
    return 0;
  }
  return expand(o, schema, out);
}

}  // namespace

void add_stacktrack_options(CLI::App& app, StackTrackOptions& o) {
  app.require_subcommand(1);
  CLI::App* expand_app = app.add_subcommand(
      "expand", "Print every entry of a raw event file as XML, as StackTrack's expand_events");
  expand_app->add_flag("--show_format,--show-format", o.show_format,
                       "Print the layout in use as a RAW_FORMAT description instead (no TRACE)");
  expand_app
      ->add_option("--format", o.format_file,
                   "Read entries in the layout this RAW_FORMAT file describes (as printed "
                   "by --show_format or expand_events --show_format)")
      ->option_text("FILE");
  expand_app->add_flag("--raw-times", o.raw_times,
                       "Print times as tick counts instead of seconds since the process started");
  expand_app->add_flag("-q,--quiet", o.quiet, "Do not print warnings");
  expand_app->add_flag("--strict", o.strict,
                       "Exit with status 1 when the input was truncated or inconsistent");
  expand_app->add_option("TRACE", o.input, "Raw event file (- for standard input)");
  expand_app->footer(
      "The default layout is the one of the StackTrack document's sample (24-byte entries,\n"
      "rtrace-stacktrack(1)); the byte order is the file's own. Damaged input: every entry\n"
      "before the damage is printed, then `rtrace: FILE:OFFSET: what is wrong`.\n"
      "Exit status: 0 success, 1 unreadable or corrupt input or a write error (with --strict\n"
      "also a truncated input), 2 bad options.");
}

int run_stacktrack(const StackTrackOptions& options) {
  if (options.show_format != options.input.empty()) {
    return report_error(std::invalid_argument(
                            options.show_format ? "stacktrack expand: --show_format takes no TRACE"
                                                : "stacktrack expand: a TRACE is required"),
                        2);
  }
  if (const std::optional<std::string> twice =
          standard_input_twice({{"TRACE", options.input}, {"--format", options.format_file}})) {
    return report_error(std::invalid_argument("stacktrack expand: " + *twice), 2);
  }
  return run_reporting_errors([&] { return run(options); });
}

std::function<int()> setup_stacktrack(CLI::App& app) {
  auto options = std::make_shared<StackTrackOptions>();
  add_stacktrack_options(app, *options);
  return [options] { return run_stacktrack(*options); };
}

}  // namespace rtrace::cli
