// sp-rtrace: the original launcher's command line over rtrace record.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli/record_command.h"

namespace {

int run(int argc, char** argv) {
  CLI::App app{
      "sp-rtrace: start a program with resource tracing, or toggle tracing of a running one.\n"
      "Compatible with the original tool; see rtrace-record(1).\n"
      "  sp-rtrace [OPTIONS] -x PROGRAM [ARGS...]\n"
      "  sp-rtrace [-f] [-S SIGNAL] -t PID\n"
      "  sp-rtrace -l"};
  rtrace::cli::RecordOptions options;
  options.compatible = true;
  rtrace::cli::add_record_options(app, options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;
  }
  return rtrace::cli::run_record(options, app.remaining());
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (...) {  // run_record reports its own errors; this is out of memory and the like
    std::fputs("sp-rtrace: unexpected error\n", stderr);
    return 1;
  }
}
