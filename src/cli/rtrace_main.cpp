// rtrace: one binary, one subcommand per stage of the pipeline (the table in subcommands.cpp).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command_suggestion.h"
#include "cli/completion_command.h"
#include "cli/subcommands.h"
#include "protocol/compact_protocol.h"
#include "rtrace/build_commit.h"
#include "rtrace/version.h"

namespace {

// What --version prints: the release, the commit it was built from, and the version of the
// compact format `rtrace record` writes (what a reader of its traces must know).
std::string version_text() {
  return fmt::format("rtrace {} (commit {}, compact format {}.{})", rtrace::kVersion,
                     rtrace::kBuildCommit, rtrace::compact::kMajor, rtrace::compact::kMinor);
}

// The first argument names the subcommand unless it is an option (--help, --version). One that
// names none is answered here with the closest name, where CLI11 would only say that a
// subcommand is required.
bool names_unknown_command(int argc, char** argv, std::vector<std::string_view>& names) {
  for (const rtrace::cli::Subcommand& command : rtrace::cli::subcommands()) {
    names.push_back(command.name);
  }
  if (argc < 2 || argv[1][0] == '-' ||
      std::string_view(argv[1]) == rtrace::cli::kCompletionCommand) {
    return false;
  }
  return std::find(names.begin(), names.end(), std::string_view(argv[1])) == names.end();
}

int run(int argc, char** argv) {
  std::vector<std::string_view> names;
  if (names_unknown_command(argc, argv, names)) {
    std::fprintf(stderr, "rtrace: %s\n",
                 rtrace::cli::unknown_command_message(argv[1], names).c_str());
    return 2;
  }
  CLI::App app{"rtrace: trace how a program allocates and releases resources, and explain it"};
  app.set_version_flag("--version", version_text());
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

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (...) {  // run reports what the commands throw; this is out of memory while setting up
    std::fputs("rtrace: unexpected error\n", stderr);
    return 1;
  }
}
