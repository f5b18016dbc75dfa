// rtrace: one binary, one subcommand per stage of the pipeline.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "cli/apitrace_command.h"
#include "cli/process_command.h"
#include "cli/record_command.h"
#include "cli/report_command.h"
#include "cli/resolve_command.h"
#include "rtrace/version.h"

int main(int argc, char** argv) {
  CLI::App app{"rtrace: trace how a program allocates and releases resources, and explain it"};
  app.set_version_flag("--version", rtrace::kVersion);
  app.require_subcommand(1);

  rtrace::cli::ProcessOptions process;
  CLI::App* process_app = app.add_subcommand(
      "process", "Convert and filter a trace (any supported format) into the text protocol");
  rtrace::cli::add_process_options(*process_app, process);

  rtrace::cli::RecordOptions record;
  CLI::App* record_app = app.add_subcommand(
      "record", "Run a program under the tracer (-x PROGRAM ARGS...), or toggle (-t PID)");
  rtrace::cli::add_record_options(*record_app, record);

  rtrace::cli::ResolveCommandOptions resolve;
  CLI::App* resolve_app = app.add_subcommand(
      "resolve", "Name backtrace addresses: function, source file and line (text protocol out)");
  rtrace::cli::add_resolve_options(*resolve_app, resolve);

  rtrace::cli::ReportOptions report;
  CLI::App* report_app = app.add_subcommand(
      "report", "Summarise a trace: totals, peak, leaks, hot backtraces, temporaries, sizes");
  rtrace::cli::add_report_options(*report_app, report);

  rtrace::cli::ApitraceOptions apitrace;
  CLI::App* apitrace_app = rtrace::cli::add_apitrace_command(app, apitrace);

  try {
    app.parse(argc, argv);
    if (apitrace_app->parsed()) {
      return rtrace::cli::run_apitrace(*apitrace_app, apitrace);
    }
    if (process_app->parsed()) {
      return rtrace::cli::run_process(process);
    }
    if (record_app->parsed()) {
      return rtrace::cli::run_record(record, record_app->remaining());
    }
    if (resolve_app->parsed()) {
      return rtrace::cli::run_resolve(resolve);
    }
    if (report_app->parsed()) {
      return rtrace::cli::run_report(report);
    }
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;
  } catch (const std::exception& error) {
    // The commands report their own errors; this is for what escapes them (out of memory).
    std::fprintf(stderr, "rtrace: %s\n", error.what());
    return 1;
  }
  return 0;
}
