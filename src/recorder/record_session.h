// One run of `rtrace record -x command`: start the command under the tracer, collect its traces.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "recorder/stream_tap.h"
#include "recorder/text_trace_handler.h"
#include "recorder/trace_file_names.h"
#include "recorder/tracer_settings.h"

namespace rtrace::recorder {

struct RecordRequest {
  std::vector<std::string> command;
  std::string modules;           // -e: "memory:file" (aliases, file names or paths)
  std::string module_directory;  // where librtrace-*.so are
  TracerSettings tracer;         // without `managed`: set from `managed` below
  bool managed = false;          // -m: the traced process writes its own trace files
  // Where the traces go (-o): an existing directory or a file name pattern (trace_file_names.h;
  // a directory only with `original_protocol`); nothing: the current directory.
  std::optional<std::string> output;
  // -P's text goes to standard output (`output` is then unused; attachments go to the current
  // directory, as the original does).
  bool text_to_stdout = false;
  TraceNameStyle name_style = TraceNameStyle::Program;
  // -P: post-process each trace in-process; without it the binary stream is kept as it came.
  std::optional<TraceConverter> convert;
  // Without -P: reads each trace's stream as it comes, besides keeping it (--profile-every).
  std::optional<StreamObserver> observe;
  bool quiet = false;
  // sp-rtrace: the trace files hold the original protocol only (rtrace's extension packets, the
  // command line and the trace end, are left out; docs/protocol-extensions.md).
  bool original_protocol = false;
  // -p: attach to this running process instead of starting `command`.
  std::optional<pid_t> attach_pid;
};

struct RecordResult {
  int exit_status = 0;  // the traced program's: its exit status, or 128 + N for signal N
  bool all_recorded = true;
  // False when no process ever connected: the tracer never started in the program (never told
  // to, or it ignores LD_PRELOAD: statically linked, set-uid). Always true in managed mode.
  bool traced = true;
};

// Throws std::invalid_argument for a request that cannot work (unknown module, no main module,
// an output that is neither a directory nor a pattern in one, a pattern with -m), std::system_error
// when the program cannot be started, std::runtime_error for other failures.
RecordResult record(const RecordRequest& request);

}  // namespace rtrace::recorder
