#include "cli/resolve_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <thread>

#include "cli/exit_status.h"
#include "cli/trace_input_option.h"
#include "exports/export_registry.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "io/output_stream.h"
#include "io/progress.h"
#include "pipeline/pipeline.h"
#include "rtrace/version.h"

namespace rtrace::cli {
namespace {

symbols::ResolveOptions stage_options(const ResolveCommandOptions& o) {
  symbols::ResolveOptions options;
  // elf: symbol tables only, as the original's -t elf; everything else uses DWARF first.
  options.method =
      o.method == "elf" ? symbols::ResolveMethod::SymbolTable : symbols::ResolveMethod::DebugInfo;
  options.root = o.root;
  options.full_path = o.full_path;
  options.keep_resolved = o.keep_resolved;
  options.jobs = o.jobs != 0 ? o.jobs : std::max(1U, std::thread::hardware_concurrency());
  return options;
}

// Any format in, read into the model, symbols attached by the resolve stage, text out. A text
// input keeps its layout (groups, summaries, `##` lines where they stand), as the original
// resolver, which only rewrites backtrace lines, keeps it.
int resolve(const ResolveCommandOptions& o) {
  StderrDiagnostics diagnostics(o.quiet);
  std::unique_ptr<InputStream> input = open_input(o.input, Progress::shown_on_stderr(o.quiet));
  OutputStream out = o.output.empty() ? OutputStream() : OutputStream(o.output, {o.input});
  const std::unique_ptr<TraceSink> writer = find_export("text")->open(
      out, ExportOptions{.origin = std::string(kOrigin), .keep_input_order = true});
  const std::vector<StageSpec> stages{{"resolve", ""}};
  Pipeline pipeline(stages, StageContext{.resolve = stage_options(o), .warn = {}}, *writer);

  const std::optional<InputError> damage = pipeline.run(*input, diagnostics);
  out.commit();
  if (damage) {
    throw *damage;
  }
  // Everything is written and committed: leave without taking the indexes of the files apart
  // (millions of small blocks, about 3 % of the instructions of a large run). The input goes
  // first, which ends its progress line.
  input.reset();
  std::fflush(nullptr);
  std::_Exit(0);
}

}  // namespace

void add_resolve_options(CLI::App& app, ResolveCommandOptions& o) {
  add_trace_input_option(app, o.input);
  app.add_option("-o,--output-file", o.output, "Output file (default: standard output)")
      ->option_text("PATH");
  app.add_option("-r,--root", o.root,
                 "Sysroot: look for modules and debug files under this directory")
      ->option_text("DIR");
  app.add_flag("-p,--full-path", o.full_path,
               "Print source files with their full path instead of the base name");
  app.add_flag("-k,--keep-resolved", o.keep_resolved,
               "Keep frames that are already resolved in the input instead of resolving again");
  app.add_option("-m,--mode", o.mode,
                 "Operation mode of the original tool; all modes use the same cached resolver")
      ->check(CLI::IsMember({"full-cache", "multi-pass", "single-cache"}))
      ->option_text("full-cache|multi-pass|single-cache");
  app.add_option("-t,--method", o.method,
                 "elf: symbol tables only (`f() from /module`); dwarf (also bfd, the original's "
                 "default): `f() at file.c:42` where debug information exists")
      ->check(CLI::IsMember({"dwarf", "bfd", "elf"}))
      ->option_text("dwarf|bfd|elf");
  app.add_option("-j,--jobs", o.jobs,
                 "Threads that look addresses up (default 0: one per core); the output is the "
                 "same for every number")
      ->check(CLI::Range(0U, 1024U))
      ->option_text("N");
  app.add_flag("-q,--quiet", o.quiet, "Do not print warnings, nor a progress line");
  app.footer(
      "Frames are looked up at the return address minus one, so that they name the call.\n"
      "Addresses outside every mapping print `in ??`; addresses in a module that cannot be\n"
      "read or has no symbol for them print `from /path/module`.\n"
      "Exit status: 0 success, 1 unreadable or corrupt input or a write error, 2 bad options.");
}

int run_resolve(const ResolveCommandOptions& options) {
  return run_reporting_errors([&] { return resolve(options); });
}

std::function<int()> setup_resolve(CLI::App& app) {
  auto options = std::make_shared<ResolveCommandOptions>();
  add_resolve_options(app, *options);
  return [options] { return run_resolve(*options); };
}

}  // namespace rtrace::cli
