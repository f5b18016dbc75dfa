// rtrace: one binary, one subcommand per stage of the pipeline (the table in subcommands.cpp).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <functional>
#include <vector>

#include "cli/completion_command.h"
#include "cli/subcommands.h"
#include "rtrace/version.h"

int main(int argc, char** argv) {
  CLI::App app{"rtrace: trace how a program allocates and releases resources, and explain it"};
  app.set_version_flag("--version", rtrace::kVersion);
  app.require_subcommand(1);

  struct Declared {
    CLI::App* app;
    std::function<int()> run;
  };
  std::vector<Declared> declared;
  for (const rtrace::cli::Subcommand& command : rtrace::cli::subcommands()) {
    CLI::App* sub = app.add_subcommand(std::string(command.name), std::string(command.description));
    declared.push_back({sub, command.setup(*sub)});
  }
  rtrace::cli::add_completion_command(app);

  try {
    app.parse(argc, argv);
    for (const Declared& command : declared) {
      if (command.app->parsed()) {
        return command.run();
      }
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
