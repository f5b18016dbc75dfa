// The bash completion script of rtrace's commands, generated from their CLI11 definitions, so
// that every subcommand and option a command accepts completes, and nothing it does not.
//
// The script holds tables (subcommands, options, what completes each option's value and each
// positional argument) and one completion function that walks the words typed so far through
// them. A value completes from:
//   - the option's fixed set, when it has one (a CLI::IsMember check: --to, --format, export's
//     formats, ...);
//   - the module catalogue for -e (the command's own `-l` list, asked when completing, so that
//     it is the installed modules');
//   - nothing for a number (a CLI::Range check, or an integer type);
//   - file names otherwise.
// A command that takes a program to run (record: CLI11's prefix command) completes command
// names for it, then file names for the program's own arguments.
#pragma once

#include <CLI/CLI.hpp>
#include <span>
#include <string>

namespace rtrace::cli {

struct CompletedCommand {
  std::string name;  // what the user types: "rtrace", "sp-rtrace", ...
  CLI::App* app;     // its options and subcommands, as the command declares them
};

// The script: sourced by bash, it completes every command in `commands`.
std::string bash_completion_script(std::span<const CompletedCommand> commands);

}  // namespace rtrace::cli
