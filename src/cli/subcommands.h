// The table of `rtrace` subcommands.
//
// Adding a subcommand: a file pair src/cli/<name>_command.{h,cpp} with its options, its run
// function and a setup function (see process_command.h), and ONE line in the table in
// subcommands.cpp. rtrace_main.cpp never changes.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <span>
#include <string_view>

namespace rtrace::cli {

struct Subcommand {
  std::string_view name;
  std::string_view description;  // one line, for `rtrace --help`
  // Declares the subcommand's options on `app`; returns what runs it once the command line is
  // parsed (returning the exit status).
  std::function<int()> (*setup)(CLI::App& app) = nullptr;
};

std::span<const Subcommand> subcommands();

}  // namespace rtrace::cli
