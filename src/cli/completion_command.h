// `rtrace completion bash`: prints the bash completion script of rtrace, sp-rtrace,
// sp-rtrace-postproc and sp-rtrace-resolve (bash_completion.h), generated from their option
// definitions. The build runs it to make the script it installs; the subcommand is hidden from
// `rtrace --help`.
#pragma once

#include <CLI/CLI.hpp>

namespace rtrace::cli {

// The hidden subcommand's name: known to rtrace, never offered as a suggestion.
inline constexpr const char* kCompletionCommand = "completion";

// Adds the hidden subcommand to `rtrace`, the whole command: the script covers what it declares,
// so call this once every other subcommand is added. Once parsed, it prints the script and ends
// the parse with CLI::Success (exit status 0).
void add_completion_command(CLI::App& rtrace);

}  // namespace rtrace::cli
