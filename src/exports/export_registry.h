// The table of exports: every way rtrace writes a trace out (`rtrace process --to NAME`).
//
// The first entries are the formats that have a writer (text, binary); the others are exports
// proper, one file each under src/exports/ (flame graphs, Chrome traces, ... as they come).
// Adding an export: a file with a TraceSink (override only the records it uses, and finish())
// and a function returning its ExportInfo, plus ONE line in the table in export_registry.cpp.
// A program may also add an export at run time (register_export), as the tests do.
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "io/output_stream.h"
#include "model/export_options.h"
#include "model/trace_sink.h"

namespace rtrace {

struct ExportInfo {
  std::string_view name;         // as --to takes it
  std::string_view description;  // for --help
  std::string_view suffix;       // of the files it writes
  std::unique_ptr<TraceSink> (*open)(OutputStream& out, const ExportOptions& options) = nullptr;
  // Shows a stretch of the trace (ExportOptions::range, --from/--to); the others refuse one.
  bool time_range = false;
};

// Every export, writable formats first.
std::vector<ExportInfo> exports();
// The export called `name`, or nullopt.
std::optional<ExportInfo> find_export(std::string_view name);
// Adds `info` to the table for the rest of the program (names must be new).
void register_export(const ExportInfo& info);

}  // namespace rtrace
