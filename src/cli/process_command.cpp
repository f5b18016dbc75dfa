#include "cli/process_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>

#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <vector>

#include "cli/exit_status.h"
#include "cli/per_process_outputs.h"
#include "cli/process_stages.h"
#include "cli/trace_input_option.h"
#include "exports/export_registry.h"
#include "formats/format_registry.h"
#include "formats/loss_witness.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "io/output_stream.h"
#include "io/progress.h"
#include "pipeline/completeness_check.h"
#include "pipeline/late_maps_first.h"
#include "pipeline/original_protocol_only.h"
#include "pipeline/pid_probe.h"
#include "pipeline/pid_split.h"
#include "pipeline/pipeline.h"
#include "rtrace/version.h"

namespace rtrace::cli {
namespace {

bool is_directory(const std::string& path) {
  struct stat st {};
  return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

ExportInfo output_export(const ProcessOptions& o) {
  const std::optional<ExportInfo> info = find_export(o.output_format);
  if (!info) {
    throw StageOptionError(fmt::format("--to: no export called '{}'", o.output_format));
  }
  return *info;
}

// The memory maps that a trace in a file records after its first call, read ahead so that they
// print before the calls, as the original prints every map, by its format's late_maps (binary
// and compact traces); none for other input (a pipe cannot be read twice: there they print where
// they arrive). See rtrace-process(1), TEXT OUTPUT.
std::vector<Mapping> late_maps_of(const std::string& path, const InputStream& main_input) {
  // A mapped file is read again through the same mapping; another regular file is opened again.
  const ReadAgain read_again = [&]() -> std::unique_ptr<InputStream> {
    std::unique_ptr<InputStream> again = main_input.read_again();
    struct stat st {};
    if (!again && !path.empty() && path != "-" && ::stat(path.c_str(), &st) == 0 &&
        S_ISREG(st.st_mode)) {
      again = open_input(path);
    }
    return again;
  };
  const std::unique_ptr<InputStream> input = read_again();
  if (!input) {
    return {};
  }
  const TraceFormatInfo* format = detect_format(input->peek(kDetectBytes));
  if (format == nullptr || format->late_maps == nullptr) {
    return {};
  }
  return format->late_maps(*input, read_again);
}

// -l by the input's format's leaks scan, when it has one that applies to `input`
// (TraceFormatInfo::scan_leaks): the calls that cannot leak are never decoded.
std::unique_ptr<LeaksScanRead> leaks_scan_of(const ProcessOptions& o, InputStream& input) {
  if (!leaks_scan_applies(o)) {
    return nullptr;
  }
  const TraceFormatInfo* format = detect_format(input.peek(kDetectBytes));
  if (format == nullptr || format->scan_leaks == nullptr) {
    return nullptr;
  }
  return format->scan_leaks(input, Progress::shown_on_stderr(o.quiet));
}

// Where the reader is: a line number for text, a byte offset for binary.
std::uint64_t position(const InputStream& input) {
  return input.line_number() != 0 ? input.line_number() : input.offset();
}

// A trace that broke off (CompletenessCheck) is a warning at the end of the input: its calls are
// all there is, but the process went on after them. `end` is where the input ended, when the
// format's leaks scan read it instead of `input`.
std::function<void(std::uint32_t)> warn_incomplete(const InputStream& input,
                                                   Diagnostics& diagnostics,
                                                   std::optional<std::uint64_t> end = {}) {
  return [&input, &diagnostics, end](std::uint32_t pid) {
    diagnostics.warning(input.name(), end.value_or(position(input)),
                        fmt::format("{} (process {})", kIncompleteTrace, pid));
  };
}

int process(const ProcessOptions& o) {
  StderrDiagnostics diagnostics(o.quiet);
  const std::unique_ptr<InputStream> input =
      open_input(o.input, Progress::shown_on_stderr(o.quiet));

  const bool to_directory = is_directory(o.output);
  OutputStream stream =
      o.output.empty() || to_directory ? OutputStream() : OutputStream(o.output, {o.input});
  PerProcessOutputs outputs(o, output_export(o), &stream, to_directory ? o.output : std::string());
  PidSplit split([&](std::uint32_t pid) -> TraceSink& { return outputs.open(pid); });
  const std::unique_ptr<LeaksScanRead> fast = leaks_scan_of(o, *input);
  // Without late maps the stage would only pass every record on: it is left out.
  std::vector<Mapping> late_maps = fast ? fast->late_maps() : late_maps_of(o.input, *input);
  std::optional<LateMapsFirst> late_maps_first;
  if (!late_maps.empty()) {
    late_maps_first.emplace(split, std::move(late_maps));
  }
  CompletenessCheck check(late_maps_first ? static_cast<TraceSink&>(*late_maps_first) : split,
                          warn_incomplete(*input, diagnostics,
                                          fast ? std::optional(fast->end_offset()) : std::nullopt));
  std::optional<InputError> damage;
  try {
    if (fast) {
      fast->read(check, diagnostics);
    } else {
      read_trace(*input, check, diagnostics);
    }
  } catch (const InputError& error) {
    damage = error;
  } catch (const TooManyProcesses& error) {
    // Like damage: the processes met so far are written, then the input is named where it was.
    // The reader did not end the stream (the split threw inside it): end their branches, so
    // that the stages that write only at the end (-l, -c) write them too.
    damage = InputError(input->name(), position(*input), error.what());
    split.finish();
  }

  // Damaged input: what came before the damage is written first, then the damage reported.
  for (const std::string& path : outputs.commit()) {
    if (!o.quiet) {
      fmt::print(stderr, "rtrace: created {}\n", path);
    }
  }
  // A conversion says what the format it wrote could not hold (the default text output, a view
  // of the trace, says nothing: what it leaves out, the trace itself keeps).
  if (const std::string lost = describe_losses(outputs.lost());
      !lost.empty() && o.output_format != "text") {
    diagnostics.warning(input->name(), fast ? fast->end_offset() : position(*input),
                        fmt::format("the {} format cannot hold what the trace has of: {}; left out",
                                    o.output_format, lost));
  }
  if (damage) {
    throw *damage;
  }
  return o.strict && diagnostics.warning_count() > 0 ? 1 : 0;
}

}  // namespace

bool leaks_scan_applies(const ProcessOptions& o) {
  const char* disabled = std::getenv("RTRACE_NO_FAST_PATH");
  if (disabled != nullptr && *disabled != '\0' && std::string_view(disabled) != "0") {
    return false;
  }
  return o.leaks && !o.context_mask && !o.resource_mask && !o.include_file && !o.exclude_file &&
         !o.call_address;
}

void add_process_options(CLI::App& app, ProcessOptions& o) {
  add_trace_input_option(app, o.input);
  app.add_option("-o,--output,--output-dir", o.output,
                 "Output file, or an existing directory to create <pid>-<n>.rtrace.txt in, one "
                 "per process (default: standard output)")
      ->option_text("PATH");
  std::vector<std::string> names;
  for (const ExportInfo& info : exports()) {
    names.emplace_back(info.name);
  }
  app.add_option("--to", o.output_format, "Output format (an export: text, binary, ...)")
      ->check(CLI::IsMember(names))
      ->option_text(fmt::format("{}", fmt::join(names, "|")));
  app.add_flag("-t,--text")
      ->description("Write text output (always the default; kept for compatibility)");
  app.add_option("-f,--format", "Ignored; the input format is detected from its content")
      ->option_text("FORMAT");
  app.add_flag("-q,--quiet", o.quiet, "Do not print warnings, nor a progress line");
  app.add_flag("--strict", o.strict, "Exit with status 1 when the input was damaged or truncated");

  app.add_flag("-l,--filter-leaks", o.leaks, "Keep only resources never released");
  app.add_flag("-c,--compress", o.compress, "Group calls by identical backtrace");
  app.add_flag("-r,--resolve", o.resolve, "Resolve backtrace addresses to names");
  app.add_flag("-a,--remove-args", o.remove_args, "Drop function argument lines");
  app.add_option("-s,--sort", o.sort, "Order of compressed groups")
      ->check(CLI::IsMember({"size", "size-asc", "count", "count-asc"}))
      ->option_text("size|size-asc|count|count-asc");
  app.add_option("-C,--context", o.context_mask, "Keep calls in these contexts (hex mask)")
      ->option_text("MASK");
  app.add_option("-R,--resource", o.resource_mask, "Keep calls of these resource types (hex mask)")
      ->option_text("MASK");
  app.add_option("-b,--backtrace-depth", o.backtrace_depth, "Trim backtraces to N frames")
      ->option_text("N");
  app.add_option("--include", o.include_file, "Keep only the calls listed (one index per line)")
      ->option_text("FILE");
  app.add_option("--exclude", o.exclude_file, "Drop the calls listed (one index per line)")
      ->option_text("FILE");
  app.add_option("--call-address", o.call_address, "Keep allocations made from this code range")
      ->option_text("TARGET:START+SIZE");
  app.footer(
      "Exit status: 0 success (warnings allowed), 1 unreadable or corrupt input or a write\n"
      "error (with --strict also a damaged input or an incomplete trace), 2 bad options.");
}

std::optional<InputError> process_stream(const ProcessOptions& options, InputStream& input,
                                         OutputStream& out, Diagnostics& diagnostics,
                                         std::uint32_t* pid, std::string* name) {
  const std::unique_ptr<TraceSink> writer =
      output_export(options).open(out, ExportOptions{.origin = std::string(kOrigin)});
  PidProbe probe(*writer);
  OriginalProtocolOnly original(probe);
  TraceSink& last = options.original_protocol ? static_cast<TraceSink&>(original) : probe;
  CompletenessCheck check(last, warn_incomplete(input, diagnostics));
  Pipeline pipeline(process_stages(options), process_stage_context(options), check);
  std::optional<InputError> damage = pipeline.run(input, diagnostics);
  if (pid != nullptr) {
    *pid = probe.pid();
  }
  if (name != nullptr) {
    *name = probe.name();
  }
  return damage;
}

int run_process(const ProcessOptions& options) {
  try {
    check_process_options(options);
    output_export(options);
  } catch (const StageOptionError& error) {
    return report_error(error, 2);
  }
  return run_reporting_errors([&] {
    if (!options.leaks || !options.suppressions) {
      return process(options);
    }
    ProcessOptions with_rules = options;
    with_rules.suppression_rules = load_suppressions(*options.suppressions, options.quiet);
    return process(with_rules);
  });
}

std::function<int()> setup_process(CLI::App& app) {
  auto options = std::make_shared<ProcessOptions>();
  add_process_options(app, *options);
  app.add_option("--leak-kinds", options->leak_kinds,
                 "With -l: keep the leaks of these kinds only, as the trace's leak check "
                 "(rtrace record --leak-check) classified them, as valgrind's --show-leak-kinds: "
                 "definite,indirect,possible,reachable or all (default: all)")
      ->option_text("KINDS");
  // -l leaves out what the suppressions match (rtrace's own rules, the user's), and says so.
  add_suppression_options(app, options->suppressions.emplace());
  return [options] { return run_process(*options); };
}

}  // namespace rtrace::cli
