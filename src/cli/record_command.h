// `rtrace record` and `sp-rtrace`: start a program under the tracer and collect its traces,
// toggle tracing of a running program, list the tracing modules.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rtrace::cli {

struct RecordOptions {
  // sp-rtrace: the original's defaults (tracing waits for the toggle signal unless -s; only the
  // modules -e names). `rtrace record` traces memory from the start unless told otherwise.
  bool compatible = false;
  // Launch (-x command ...).
  bool execute = false;
  bool start = false;
  bool wait_for_toggle = false;  // rtrace record --wait: tracing off until toggled
  std::string modules;
  std::optional<std::string> output;  // a directory, or "stdout"
  std::optional<std::string> postproc;
  bool managed = false;
  std::string format = "compact";  // rtrace record --format: compact or sp-rtrace
  bool leak_check = false;         // rtrace record --leak-check: leak kinds at the trace's end
  bool no_compress = false;        // rtrace record --no-compress: a compact trace without zstd
  // rtrace record --sample-bytes: record allocations sampled every N bytes ("0": all of them)
  std::string sample_bytes = "0";
  // rtrace record --profile-every: a pprof profile every INTERVAL of the trace's clock
  std::optional<std::string> profile_every;
  // -b; without it, 64 frames in the compact format and 10 in the sp-rtrace protocol (the
  // compatible command, --format sp-rtrace): tracer_options::default_depth.
  std::optional<unsigned> depth;
  bool free_backtraces = false;
  bool no_timestamps = false;
  std::string sizes;
  bool no_buffering = false;
  bool arguments = false;
  std::string audit_patterns;  // --audit: what the audit module traces
  bool libunwind = false;      // accepted for compatibility: we always unwind with libunwind
  // Toggle (-t pid), both modes; on an attached process (or its recorder) -t detaches.
  std::optional<int> toggle_pid;
  // rtrace record -p: attach to a running process.
  std::optional<int> attach_pid;
  bool follow_forks = false;
  std::string signal = "SIGUSR1";
  // The program and its arguments when they follow `--` (see add_record_options).
  std::vector<std::string> after_end_of_options;
  // Other.
  bool list = false;
  bool quiet = false;
};

// Declares the options on `app` (those of `sp-rtrace` when options.compatible is set). The
// command to trace is what follows -x (or `--`, or the first argument that is not an option):
// `app` is made a prefix command, so everything from there on is left in app.remaining().
void add_record_options(CLI::App& app, RecordOptions& options);

// Runs what the options ask for; `command` is app.remaining() (the program and its arguments,
// wherever the parse left them). Returns the exit status.
int run_record(const RecordOptions& options, std::vector<std::string> command);

}  // namespace rtrace::cli
