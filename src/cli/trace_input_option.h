// The trace a subcommand reads (process, resolve, export): given as an argument or with -i, one
// definition so that the three commands (and the compatible sp-rtrace-postproc and
// sp-rtrace-resolve, which share their options) name and describe it alike.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace rtrace::cli {

inline void add_trace_input_option(CLI::App& app, std::string& input) {
  app.add_option("trace,-i,--input-file", input,
                 "Input trace (any supported format); - or none = stdin")
      ->option_text("PATH");
}

}  // namespace rtrace::cli
