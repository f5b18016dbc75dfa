#include "cli/apitrace_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <memory>
#include <regex>
#include <stdexcept>

#include "cli/exit_status.h"
#include "formats/apitrace/call_dumper.h"
#include "formats/apitrace/call_set.h"
#include "formats/apitrace/container.h"
#include "formats/apitrace/decoder.h"
#include "formats/apitrace/trace_info.h"
#include "io/diagnostics.h"
#include "io/output_stream.h"

namespace rtrace::cli {
namespace {

using apitrace::Call;
using apitrace::CallDumper;
using apitrace::CallSet;
using apitrace::Decoder;
using apitrace::DumpOptions;

// apitrace's boolean option values.
bool parse_bool(const std::string& option, const std::string& value) {
  if (value == "yes" || value == "true" || value == "1" || value == "on" || value.empty()) {
    return true;
  }
  if (value == "no" || value == "false" || value == "0" || value == "off") {
    return false;
  }
  throw CLI::ValidationError(option, "expected yes or no, not '" + value + "'");
}

bool parse_color(const std::string& when) {
  if (when == "always" || when.empty()) {
    return true;
  }
  if (when == "never") {
    return false;
  }
  if (when == "auto") {
    return ::isatty(STDOUT_FILENO) != 0;
  }
  throw CLI::ValidationError("--color", "expected auto, always or never, not '" + when + "'");
}

struct DumpFilter {
  CallSet calls;
  bool verbose = false;
  std::optional<std::regex> grep;
  std::optional<CallDumper> grep_text;  // the call as one uncoloured line, without its number

  bool wants(const Call& call, std::string& scratch) {
    if (!calls.contains(call.number, call.flags)) {
      return false;
    }
    if (!verbose && (call.flags & apitrace::kFlagVerbose) != 0) {
      return false;
    }
    if (grep) {
      scratch.clear();
      grep_text->call(call, scratch);
      if (!scratch.empty() && scratch.back() == '\n') {
        scratch.pop_back();
      }
      return std::regex_search(scratch, *grep);
    }
    return true;
  }
};

// Reading damage ends the dump: what was printed stays, then `rtrace: FILE:OFFSET: ...`.
int dump(const ApitraceOptions& o) {
  DumpOptions options;
  options.color = parse_color(o.color);
  options.thread_ids = parse_bool("--thread-ids", o.thread_ids);
  options.call_numbers = parse_bool("--call-nos", o.call_nos);
  options.arg_names = parse_bool("--arg-names", o.arg_names);
  options.multiline = parse_bool("--multiline", o.multiline);
  options.blobs = o.blobs;

  DumpFilter filter;
  filter.verbose = o.verbose;
  for (const std::string& set : o.calls) {
    filter.calls.merge(set);  // repeated --calls add up, as in apitrace
  }
  if (o.grep) {
    filter.grep.emplace(*o.grep);
    DumpOptions line;
    line.call_numbers = false;
    line.multiline = false;
    line.arg_names = options.arg_names;
    filter.grep_text.emplace(line);
  }

  // Blob files land in the current directory, as apitrace puts them.
  apitrace::BlobSaver save_blob = [&](const std::string& name, std::string_view bytes) {
    OutputStream file(name, {o.trace});
    file.write(bytes);
    file.commit();
  };
  CallDumper dumper(options, save_blob);

  StderrDiagnostics diagnostics;
  OutputStream out;
  const apitrace::OpenedTrace opened = apitrace::open_trace(o.trace, diagnostics);
  try {
    Decoder decoder(*opened.stream, diagnostics, opened.check_end);
    if (!filter.grep) {
      dumper.properties(decoder.header(), out.buffer());
    }
    std::string scratch;
    while (const Call* call = decoder.next()) {
      if (filter.wants(*call, scratch)) {
        dumper.call(*call, out.buffer());
        out.maybe_flush();
      }
    }
  } catch (const InputError&) {
    out.flush();
    throw;
  }
  out.commit();
  return 0;
}

int info(const ApitraceOptions& o) {
  StderrDiagnostics diagnostics;
  const apitrace::OpenedTrace opened = apitrace::open_trace(o.trace, diagnostics);
  Decoder decoder(*opened.stream, diagnostics, opened.check_end);
  const apitrace::TraceInfo info = apitrace::collect_info(o.trace, opened, decoder);
  OutputStream out;
  out.write(apitrace::info_json(info, o.dump_frames));
  out.commit();
  return 0;
}

}  // namespace

void add_apitrace_options(CLI::App& apitrace, ApitraceOptions& o) {
  apitrace.require_subcommand(1);

  CLI::App* dump = apitrace.add_subcommand(
      "dump", "Print the calls of an apitrace trace, as `apitrace dump` does");
  dump->add_option("trace", o.trace, "Trace file (Snappy, gzip, zstd or Brotli container)")
      ->required()
      ->option_text("TRACE");
  dump->add_flag("-v,--verbose", o.verbose, "Also the calls apitrace hides (glGetString, ...)");
  dump->add_option("--color,--colour", o.color, "Colours: auto (a terminal), always, never")
      ->expected(0, 1)
      ->option_text("[=WHEN]");
  dump->add_option("--thread-ids", o.thread_ids, "Show each call's thread number (@hex)")
      ->expected(0, 1)
      ->option_text("[=BOOL]");
  dump->add_option("--call-nos", o.call_nos, "Show call numbers (default yes)")
      ->expected(0, 1)
      ->option_text("[=BOOL]");
  dump->add_option("--arg-names", o.arg_names, "Show argument names (default yes)")
      ->expected(0, 1)
      ->option_text("[=BOOL]");
  dump->add_option("--multiline", o.multiline,
                   "Backtraces, raw newlines in strings, a blank line after each frame "
                   "(default yes)")
      ->expected(0, 1)
      ->option_text("[=BOOL]");
  dump->add_option("--calls", o.calls,
                   "Only these calls: numbers and ranges (0-3,20,46-,10-90/2, * = all), "
                   "kinds (frame, draw, fbo; 1-1000/draw), @FILE; repeat to add sets")
      ->option_text("SET")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  dump->add_option("--grep", o.grep,
                   "Only calls whose line (without number) matches this ECMAScript regex")
      ->option_text("REGEX");
  dump->add_flag("--blobs", o.blobs,
                 "Write each blob to blob_call<N>[_<k>].bin in the current directory");

  CLI::App* info =
      apitrace.add_subcommand("info", "Print what `apitrace info` prints about a trace (JSON)");
  info->add_option("trace", o.trace, "Trace file")->required()->option_text("TRACE");
  info->add_flag("--dump-frames", o.dump_frames, "List every frame: calls and stream bytes");
}

int run_apitrace(const CLI::App& apitrace_app, const ApitraceOptions& options) {
  const bool is_dump = apitrace_app.get_subcommand("dump")->parsed();
  try {
    return is_dump ? dump(options) : info(options);
  } catch (const CLI::ValidationError& error) {
    return report_error(error, 2);
  } catch (const std::invalid_argument& error) {
    return report_error(error, 2);
  } catch (const std::regex_error& error) {
    return report_error(std::runtime_error(std::string("--grep: ") + error.what()), 2);
  } catch (const std::exception& error) {
    return report_error(error);
  }
}

std::function<int()> setup_apitrace(CLI::App& app) {
  auto options = std::make_shared<ApitraceOptions>();
  add_apitrace_options(app, *options);
  return [options, &app] { return run_apitrace(app, *options); };
}

}  // namespace rtrace::cli
