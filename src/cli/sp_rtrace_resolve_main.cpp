// sp-rtrace-resolve: the original name resolver's command line over rtrace resolve.
#include <CLI/CLI.hpp>

#include "cli/resolve_command.h"

namespace {

int run(int argc, char** argv) {
  CLI::App app{
      "sp-rtrace-resolve: resolve backtrace addresses of a resource trace to function names,\n"
      "source files and lines. Compatible with the original tool; see rtrace-resolve(1)."};
  rtrace::cli::ResolveCommandOptions options;
  rtrace::cli::add_resolve_options(app, options);
  try {
    app.parse(argc, argv);
    return rtrace::cli::run_resolve(options);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // run_resolve reports its own errors; only setting up the options or printing help can throw.
  try {
    return run(argc, argv);
  } catch (...) {
    return 1;
  }
}
