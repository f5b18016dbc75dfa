// rtrace: one binary, one subcommand per stage of the pipeline.
#include <CLI/CLI.hpp>

#include "cli/process_command.h"
#include "rtrace/version.h"

int main(int argc, char** argv) {
  CLI::App app{"rtrace: trace how a program allocates and releases resources, and explain it"};
  app.set_version_flag("--version", rtrace::kVersion);
  app.require_subcommand(1);

  rtrace::cli::ProcessOptions process;
  CLI::App* process_app = app.add_subcommand(
      "process", "Convert and filter a trace (any supported format) into the text protocol");
  rtrace::cli::add_process_options(*process_app, process);

  try {
    app.parse(argc, argv);
    if (process_app->parsed()) return rtrace::cli::run_process(process);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;
  }
  return 0;
}
