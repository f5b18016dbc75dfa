// sp-rtrace-postproc: the original post-processor's command line over rtrace process.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "cli/process_command.h"

int main(int argc, char** argv) {
  CLI::App app{
      "sp-rtrace-postproc: post-process resource trace data (binary or text) into text.\n"
      "Compatible with the original tool; see rtrace-process(1)."};
  rtrace::cli::ProcessOptions options;
  rtrace::cli::add_process_options(app, options);
  try {
    app.parse(argc, argv);
    return rtrace::cli::run_process(options);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;
  } catch (const std::exception& error) {
    // The commands report their own errors; this is for what escapes them (out of memory).
    std::fprintf(stderr, "rtrace: %s\n", error.what());
    return 1;
  }
}
