#include "cli/record_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <exception>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <system_error>

#include "cli/byte_count_option.h"
#include "cli/exit_status.h"
#include "cli/process_command.h"
#include "cli/process_stages.h"
#include "exports/pprof/profile_series.h"
#include "io/diagnostics.h"
#include "io/standard_stream.h"
#include "model/call_range.h"
#include "pipeline/pipeline.h"
#include "protocol/tracer_options.h"
#include "recorder/attach/attached_recording.h"
#include "recorder/module_catalog.h"
#include "recorder/record_session.h"
#include "recorder/toggle.h"
#include "rtrace/version.h"

namespace rtrace::cli {
namespace {

// A bad option value: exit status 2, like a parse error.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::vector<std::uint64_t> parse_sizes(const std::string& text) {
  std::vector<std::uint64_t> sizes;
  std::size_t begin = 0;
  while (begin <= text.size() && !text.empty()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    std::uint64_t size = 0;
    const char* first = text.data() + begin;
    const char* last = text.data() + end;
    const auto [stop, error] = std::from_chars(first, last, size);
    if (first == last || error != std::errc() || stop != last) {
      throw UsageError("-M: '" + text + "' is not a list of sizes (SIZE[,SIZE...])");
    }
    sizes.push_back(size);
    begin = end + 1;
  }
  return sizes;
}

// The -S signal, by number or name; one that cannot toggle (SIGKILL, SIGSTOP) is refused.
int toggle_signal(const std::string& text) {
  const std::optional<int> signal = recorder::parse_signal(text);
  if (!signal) {
    throw UsageError("-S: unknown signal '" + text + "'");
  }
  if (const std::optional<std::string> why = recorder::unusable_toggle_signal(*signal)) {
    throw UsageError("-S: " + *why);
  }
  return *signal;
}

recorder::TracerSettings tracer_settings(const RecordOptions& o) {
  recorder::TracerSettings s;
  s.start = o.compatible ? o.start : !o.wait_for_toggle;
  s.free_backtraces = o.free_backtraces;
  s.timestamps = !o.no_timestamps;
  s.sizes = parse_sizes(o.sizes);
  s.buffered = !o.no_buffering;
  s.follow_forks = o.follow_forks;
  s.arguments = o.arguments;
  s.signal = toggle_signal(o.signal);
  // sp-rtrace's trace files hold the original protocol only. Through the recorder the extension
  // packets still come (they tell a killed process's trace) and are left out of the file; in
  // managed mode (-m) the process writes its files itself, so it must not write them at all.
  s.extensions = !(o.compatible && o.managed);
  // The compatible sp-rtrace command keeps writing the original's binary protocol.
  s.compact = !o.compatible && o.format == "compact";
  s.depth = o.depth.value_or(tracer_options::default_depth(s.compact));
  // zstd level 1 (a third of the bytes, for about 205 of the tracer's writer thread's ~700
  // instructions a call: bench/RESULTS.md, "The tracer's instructions per call"); not when the
  // recorder turns the stream into text itself (-P).
  s.compress_level = o.no_compress || o.postproc ? 0 : 1;
  s.audit_patterns = o.audit_patterns;
  if (o.leak_check && !s.compact) {
    throw UsageError(
        "--leak-check: the leak kinds are written in the compact format only; drop "
        "--format sp-rtrace");
  }
  s.leak_check = o.leak_check;
  const std::optional<std::uint64_t> sample_bytes = parse_byte_count(o.sample_bytes);
  if (!sample_bytes) {
    throw UsageError("--sample-bytes: '" + o.sample_bytes +
                     "' is not a number of bytes (N, or N with K, KiB, M, MiB, G, GiB)");
  }
  s.sample_bytes = *sample_bytes;
  if (s.leak_check && s.sample_bytes != 0) {
    throw UsageError(
        "--leak-check needs every block (it follows pointers from block to block); drop "
        "--sample-bytes");
  }
  return s;
}

// The -P string, parsed with `rtrace process`'s own options.
ProcessOptions postproc_options(const std::string& text) {
  ProcessOptions options;
  CLI::App app{"-P"};
  add_process_options(app, options);
  try {
    app.parse(text, false);
  } catch (const CLI::ParseError& error) {
    throw UsageError(fmt::format("-P '{}': {}", text, error.what()));
  }
  if (options.input != "-") {
    throw UsageError("-P: the input is the traced process; drop -i");
  }
  if (options.output_format != "text") {
    throw UsageError("-P: the output is text; drop --to");
  }
  try {
    check_process_options(options);
  } catch (const StageOptionError& error) {
    throw UsageError(std::string("-P: ") + error.what());
  }
  return options;
}

// --profile-every's interval in nanoseconds: a time as --from takes one ("10s", "500ms").
std::uint64_t profile_interval(const std::string& text) {
  CallBound bound;
  try {
    bound = parse_call_bound(text);
  } catch (const std::invalid_argument& error) {
    throw UsageError(std::string("--profile-every: ") + error.what());
  }
  if (bound.unit != CallBound::Unit::Nanoseconds || bound.value < 1'000'000) {
    throw UsageError("--profile-every: '" + text + "' is not an interval of at least 1 ms");
  }
  return bound.value;
}

// --profile-every: each trace, read as it comes, feeds a series of pprof files in `directory`.
recorder::StreamObserver profile_series(std::uint64_t interval_ns, std::string directory) {
  return [interval_ns, directory](InputStream& input, std::uint32_t /*peer_pid*/) {
    exporters::ProfileSeries series(interval_ns, directory);
    Pipeline pipeline({}, StageContext{}, series);
    StderrDiagnostics diagnostics(false);
    if (std::optional<InputError> damage = pipeline.run(input, diagnostics)) {
      throw *damage;
    }
  };
}

// The directory --profile-every writes into: -o's, which must be one (the current one without).
std::string profile_directory(const std::optional<std::string>& output) {
  if (!output) {
    return ".";
  }
  std::error_code error;
  if (!std::filesystem::is_directory(*output, error)) {
    throw UsageError("--profile-every: -o " + *output +
                     " is not a directory (the profiles go into -o DIR)");
  }
  return *output;
}

// Turns one trace stream into text through the stages -P asks for.
recorder::TraceConverter text_converter(const ProcessOptions& options) {
  return [options](InputStream& input, OutputStream& out, Diagnostics& diagnostics) {
    recorder::TracedIdentity process;
    if (std::optional<InputError> damage =
            process_stream(options, input, out, diagnostics, &process.pid, &process.name)) {
      throw *damage;
    }
    return process;
  };
}

recorder::RecordRequest record_request(const RecordOptions& o, std::vector<std::string> command) {
  recorder::RecordRequest request;
  request.command = std::move(command);
  // rtrace record traces memory unless told which modules; sp-rtrace loads only what -e names.
  request.modules = o.modules.empty() && !o.compatible ? "memory" : o.modules;
  request.module_directory = recorder::module_directory();
  // The audit module traces nothing without patterns, and patterns need the module.
  const bool audit_module = recorder::names_module(request.modules, "audit");
  if (audit_module && o.audit_patterns.empty()) {
    throw UsageError("-e audit needs --audit PATTERNS (the functions to trace)");
  }
  if (!audit_module && !o.audit_patterns.empty()) {
    throw UsageError("--audit needs the audit module (-e audit)");
  }
  request.tracer = tracer_settings(o);
  request.managed = o.managed;
  request.quiet = o.quiet;
  request.original_protocol = o.compatible;
  request.name_style = o.compatible || o.format == "sp-rtrace" ? recorder::TraceNameStyle::SpRtrace
                                                               : recorder::TraceNameStyle::Program;
  std::optional<std::string> output = o.output;
  if (o.profile_every) {
    if (o.postproc || o.managed || o.format != "compact") {
      throw UsageError(
          "--profile-every reads the compact trace as it comes to the recorder: drop -P, -m and "
          "--format sp-rtrace");
    }
    request.observe = profile_series(profile_interval(*o.profile_every), profile_directory(output));
  }
  if (o.postproc) {
    ProcessOptions process = postproc_options(*o.postproc);
    process.original_protocol = o.compatible;
    // As in the original, an output named inside -P comes after (and wins over) -o.
    if (!process.output.empty()) {
      output = process.output;
    }
    request.convert = text_converter(process);
    // The original sends post-processed text to standard output unless -o names a directory.
    request.text_to_stdout = !output || *output == "stdout" || names_standard_stream(*output);
    request.output = output;
  } else {
    if (output && names_standard_stream(*output)) {
      throw UsageError(
          "-o -: the binary traces are not written to standard output (the program's output "
          "goes there); -P writes their text to it");
    }
    // Without -P, "stdout" means the default place, the current directory.
    if (output && *output != "stdout") {
      request.output = output;
    }
  }
  if (request.managed && request.convert) {
    throw UsageError(
        "-P cannot be used with -m: the traced process writes its own "
        "traces; post-process them with rtrace process");
  }
  return request;
}

int launch(const RecordOptions& o, std::vector<std::string> command) {
  if (command.empty()) {
    throw UsageError("no program to trace (give it after the options, or after -x or --)");
  }
  // Without -x an unknown option ends up here, taken for the program: say what it is.
  if (!o.execute && command[0].starts_with('-')) {
    throw UsageError("unknown option '" + command[0] + "' (the program to trace follows -x)");
  }
  const recorder::RecordRequest request = record_request(o, std::move(command));
  const recorder::RecordResult result = recorder::record(request);
  if (!result.traced) {
    // Never a silent, empty result: say why there is no trace, and fail.
    fmt::print(stderr, "rtrace: {} was not traced: {}\n", request.command.front(),
               request.tracer.start
                   ? "the tracer did not start in it (a statically linked or set-uid program "
                     "ignores LD_PRELOAD)"
                   : "tracing was never toggled on (rtrace record -t PID)");
    return result.exit_status != 0 ? result.exit_status : 1;
  }
  if (!result.all_recorded && result.exit_status == 0) {
    return 1;
  }
  return result.exit_status;
}

int attach(const RecordOptions& o, const std::vector<std::string>& command) {
  if (*o.attach_pid <= 0) {
    throw UsageError(fmt::format("-p: invalid pid {}", *o.attach_pid));
  }
  if (!command.empty()) {
    throw UsageError("-p attaches to a running process: give no program to start");
  }
  if (o.managed || o.follow_forks) {
    throw UsageError(o.managed ? "-p cannot be used with -m" : "-p cannot be used with -f");
  }
  recorder::RecordRequest request = record_request(o, {});
  request.attach_pid = *o.attach_pid;
  const recorder::RecordResult result = recorder::record(request);
  if (!result.traced) {
    fmt::print(stderr, "rtrace: process {} was not traced: its tracer never connected\n",
               *o.attach_pid);
    return 1;
  }
  return result.all_recorded ? 0 : 1;
}

int toggle(const RecordOptions& o) {
  const int signal = toggle_signal(o.signal);
  if (*o.toggle_pid <= 0) {
    throw UsageError(fmt::format("-t: invalid pid {}", *o.toggle_pid));
  }
  // An attached process (or the recorder attached to it): -t detaches.
  if (!o.compatible && recorder::attach::detach_if_attached(*o.toggle_pid, o.quiet)) {
    return 0;
  }
  const std::vector<recorder::Toggled> toggled =
      recorder::toggle_tracing(*o.toggle_pid, signal, o.follow_forks);
  if (!o.quiet) {
    for (const recorder::Toggled& process : toggled) {
      fmt::print(stderr, "rtrace: tracing of process {} is now {}\n", process.pid,
                 process.tracing ? "on" : "off");
    }
  }
  return 0;
}

int list() {
  const std::string directory = recorder::module_directory();
  const std::vector<recorder::ModuleFile> modules = recorder::list_modules(directory);
  if (modules.empty()) {
    fmt::print(stderr, "rtrace: no tracing modules in {}\n", directory);
    return 1;
  }
  // Wide enough for the longest alias and file we build (memtransfer).
  fmt::print("{:<11} {:<24} {}\n", "Module", "File", "Description");
  for (const recorder::ModuleFile& module : modules) {
    fmt::print("{:<11} {:<24} {}\n", module.alias, module.file, module.description);
  }
  fmt::print("(in {})\n", directory);
  return 0;
}

// `--` ends the options. CLI11 hands a subcommand's `--` back to the parent app, which would then
// take the program for an argument of its own, unless the subcommand still has a positional to
// fill: this one, which accepts arguments only once `--` was seen (the parse keeps it in
// remaining()). Before `--` the first argument that is not an option ends the options anyway.
void add_end_of_options(CLI::App& app, RecordOptions& o) {
  app.validate_positionals();
  app.add_option("PROGRAM", o.after_end_of_options, "The program to trace and its arguments")
      ->check(CLI::Validator(
          [&app](const std::string&) {
            const std::vector<std::string> seen = app.remaining();
            return std::find(seen.begin(), seen.end(), "--") != seen.end() ? std::string()
                                                                           : std::string("-");
          },
          ""));
}

// The program and its arguments, from what the parse left.
std::vector<std::string> program_command(const RecordOptions& o, std::vector<std::string> rest) {
  if (!rest.empty() && rest.front() == "--") {
    rest.erase(rest.begin());
  }
  rest.insert(rest.end(), o.after_end_of_options.begin(), o.after_end_of_options.end());
  return rest;
}

}  // namespace

void add_record_options(CLI::App& app, RecordOptions& o) {
  app.prefix_command();
  app.add_flag("-x,--execute", o.execute,
               "Start the program that follows, with its arguments (everything after -x)");
  if (o.compatible) {
    app.add_flag("-s,--start", o.start,
                 "Trace from the start (default: wait for the toggle signal)");
  } else {
    app.add_flag("-s,--start", o.start, "Trace from the start (the default)");
    app.add_flag("-w,--wait", o.wait_for_toggle,
                 "Start with tracing off; rtrace record -t PID toggles it")
        ->excludes("-s");
    app.add_option("-p,--pid", o.attach_pid,
                   "Attach to a running process started without rtrace and trace it until "
                   "Ctrl-C or rtrace record -t PID detaches (the process runs on)")
        ->option_text("PID")
        ->excludes("-w");
  }
  app.add_option("-e,--preload", o.modules,
                 o.compatible
                     ? "Tracing modules, by alias or file name, separated by ':', in any "
                       "order: memory, file, shmsysv, shmposix, memtransfer, gobject, "
                       "pagemap, qobject, audit (e.g. file:memory; -l lists them); -e may be given "
                       "more than once"
                     : "Tracing modules, by alias or file name, separated by ':', in any "
                       "order: memory (the default), file (descriptors and FILE "
                       "streams), shmsysv, shmposix, memtransfer, gobject, pagemap, qobject, "
                       "audit (-l lists them); -e may be given more than once")
      // Repeated -e add modules (joined with ':', as one -e names several).
      ->delimiter(':')
      ->multi_option_policy(CLI::MultiOptionPolicy::Join)
      ->option_text("MODULE[:MODULE...]");
  app.add_option("-o,--output,--output-dir", o.output,
                 o.compatible
                     ? "Directory for the traces, PID-N.rtrace (default: current directory); "
                       "'stdout' or - sends -P output to standard output"
                     : "Directory for the traces, NAME.PID.rtrace (default: current directory; "
                       "PID-N.rtrace with --format sp-rtrace), or a file name pattern (%p pid, "
                       "%n program, %h host, %t start time, %% a %); 'stdout' or - sends -P "
                       "output to standard output")
      ->option_text(o.compatible ? "DIR|stdout" : "DIR|PATTERN|-");
  app.add_option("-P,--postproc", o.postproc,
                 "Post-process each trace with these rtrace process options into a .rtrace.txt "
                 "file named as -o says (standard output without -o)")
      ->option_text("'OPTIONS'")
      ->allow_extra_args(false);
  if (!o.compatible) {
    app.add_option("--format", o.format,
                   "Trace format: compact (the default; deduplicated backtraces, docs/format.md) "
                   "or sp-rtrace (the original's binary protocol, several times larger)")
        ->check(CLI::IsMember({"compact", "sp-rtrace"}))
        ->option_text("compact|sp-rtrace");
    app.add_flag("--leak-check", o.leak_check,
                 "Classify the blocks left when the trace ends (exit, toggle off) as valgrind's "
                 "leak kinds: definitely, indirectly, possibly lost, still reachable; the tracer "
                 "scans the process's memory for pointers (docs/leak-kinds.md)");
    app.add_option("--sample-bytes", o.sample_bytes,
                   "Record allocations sampled as a Poisson process over the allocated bytes, "
                   "one sample every N bytes on average (512K as tcmalloc, 4K as heapprofd); "
                   "the reports then estimate every figure (docs/sampling.md). 0 (the default): "
                   "every call")
        ->option_text("N[K|M|G]");
    app.add_option("--profile-every", o.profile_every,
                   "Also write a pprof profile of the live heap and of what was allocated since "
                   "the previous one every INTERVAL of the trace (10s, 500ms) and at its end, "
                   "into -o DIR as NAME.PID.SEQ.pb.gz, for a continuous profiler's agent; "
                   "rtrace report charts such a series")
        ->option_text("INTERVAL");
    app.add_flag("--no-compress", o.no_compress,
                 "Write the compact trace uncompressed (by default the tracer compresses it with "
                 "zstd, loaded at run time, when libzstd.so.1 is installed)");
  }
  app.add_flag("-m,--manage-preproc", o.managed,
               "Managed mode: each traced process writes its own trace files (no recorder "
               "connection; for children and programs that own the terminal)");
  app.add_option("-b,--backtrace-depth", o.depth,
                 o.compatible ? "Frames per backtrace (default 10, 0 = none, at most 256)"
                              : "Frames per backtrace (default 64; 10 with --format sp-rtrace; "
                                "0 = none, at most 256)")
      ->check(CLI::Range(0U, tracer_options::kMaxDepth))
      ->option_text("N");
  app.add_flag("-A,--backtrace-all", o.free_backtraces, "Backtraces for frees too");
  app.add_flag("-T,--disable-timestamps", o.no_timestamps, "No timestamps in call records");
  app.add_option("-M,--monitor", o.sizes, "Backtraces only for allocations of these sizes")
      ->option_text("SIZE[,SIZE...]");
  app.add_flag("-B,--disable-packet-buffering", o.no_buffering,
               "Send every event at once (slow; for real-time delivery)");
  app.add_flag("-a,--enable-arguments", o.arguments,
               "Record the memory module's arguments (the alignment of the aligned allocators); "
               "the shm modules always record theirs, as the original");
  app.add_option("--audit", o.audit_patterns,
                 "With -e audit: the functions whose calls are traced, shell globs separated by "
                 "':' (e.g. 'g_*:gtk_widget_show'); sets LD_AUDIT and LD_BIND_NOW")
      ->option_text("PATTERN[:PATTERN...]");
  app.add_flag("-u,--libunwind", o.libunwind, "Accepted for compatibility (always libunwind)");
  app.add_option("-S,--toggle-signal", o.signal,
                 "Signal that toggles tracing, by name or number (default SIGUSR1)")
      ->option_text("SIGNAL");
  app.add_option("-t,--toggle", o.toggle_pid,
                 o.compatible ? "Toggle tracing of a running traced process (its pid, or its "
                                "recorder's)"
                              : "Toggle tracing of a running traced process (its pid, or its "
                                "recorder's); detach a process attached with -p")
      ->option_text("PID");
  app.add_flag("-f,--follow-forks", o.follow_forks,
               "Trace forked children too; with -t toggle them as well");
  add_end_of_options(app, o);
  app.add_flag("-l,--list", o.list, "List the tracing modules");
  app.add_flag("-q,--quiet", o.quiet, "No informational messages, warnings or progress line");
  app.footer(
      "Exit status: that of the traced program (128+N when signal N ended it); 1 when a trace\n"
      "could not be written or nothing was traced (and the program succeeded) or the recorder\n"
      "failed; 2 bad options; 127 when the program is not found, 126 when it cannot be started.");
}

int run_record(const RecordOptions& options, std::vector<std::string> command) {
  try {
    if (options.list) {
      return list();
    }
    if (options.toggle_pid) {
      return toggle(options);
    }
    if (options.attach_pid) {
      return attach(options, program_command(options, std::move(command)));
    }
    return launch(options, program_command(options, std::move(command)));
  } catch (const UsageError& error) {
    return report_error(error, 2);
  } catch (const std::invalid_argument& error) {
    return report_error(error, 2);
  } catch (const std::system_error& error) {
    // As a shell: 127 when the program does not exist, 126 when it cannot be started.
    return report_error(error, error.code().value() == ENOENT ? 127 : 126);
  } catch (const std::exception& error) {
    return report_error(error);
  }
}

}  // namespace rtrace::cli
