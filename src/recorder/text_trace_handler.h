// Post-processes each connection's stream in-process (-P): into a file named as
// trace_file_names.h says (`NAME.PID.rtrace.txt`, or the sp-rtrace style's `PID-N.rtrace.txt`),
// or onto standard output.
//
// Several traced processes may write at once. On standard output their texts must not mix: the
// first connection to get there writes straight through; the others are kept in temporary files
// in a private directory and copied out, whole, once standard output is free.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "io/output_stream.h"
#include "recorder/trace_file_names.h"
#include "recorder/trace_handler.h"

namespace rtrace::recorder {

// The traced process as its trace's PINF gives it.
struct TracedIdentity {
  std::uint32_t pid = 0;  // 0 when the stream did not say
  std::string name;       // argv[0]; empty when the stream did not say
};

// Reads one trace from `input` through the post-processing stages into `out`; returns the traced
// process. Throws InputError after writing everything before damage in the input,
// std::runtime_error when the output cannot be written.
using TraceConverter =
    std::function<TracedIdentity(InputStream& input, OutputStream& out, Diagnostics& diagnostics)>;

class TextTraceHandler final : public TraceHandler {
 public:
  // `names`: how the files are named and where they go, or nothing for standard output.
  // `spool_directory`: a private directory for the texts waiting for standard output.
  TextTraceHandler(TraceConverter convert, std::optional<TraceFileNames> names,
                   std::string spool_directory, bool quiet)
      : convert_(std::move(convert)),
        names_(std::move(names)),
        spool_directory_(std::move(spool_directory)),
        quiet_(quiet) {}
  bool record(int fd, std::uint32_t peer_pid) override;

 private:
  // Runs the converter; returns the process (`peer` where the stream does not say). Reports input
  // damage and keeps what came before it.
  TracedIdentity convert(InputStream& input, OutputStream& out, const TracedIdentity& peer,
                         bool& complete);
  bool record_to_file(InputStream& input, const TracedIdentity& peer);
  bool record_to_stdout(InputStream& input, std::uint32_t peer_pid);
  void copy_to_stdout(const std::string& path);

  TraceConverter convert_;
  std::optional<TraceFileNames> names_;
  std::string spool_directory_;
  bool quiet_;
  std::mutex stdout_mutex_;
};

}  // namespace rtrace::recorder
