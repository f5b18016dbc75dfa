// Post-processes each connection's stream in-process (-P): into `<dir>/<pid>-<n>.rtrace.txt`, or
// onto standard output.
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
#include "recorder/trace_handler.h"

namespace rtrace::recorder {

// Reads one trace from `input` through the post-processing stages into `out`; returns the traced
// process id (0 when the stream did not say). Throws InputError after writing everything before
// damage in the input, std::runtime_error when the output cannot be written.
using TraceConverter =
    std::function<std::uint32_t(InputStream& input, OutputStream& out, Diagnostics& diagnostics)>;

class TextTraceHandler final : public TraceHandler {
 public:
  // `directory`: where the files go, or nothing for standard output. `spool_directory`: a private
  // directory for the texts waiting for standard output.
  TextTraceHandler(TraceConverter convert, std::optional<std::string> directory,
                   std::string spool_directory, bool quiet)
      : convert_(std::move(convert)),
        directory_(std::move(directory)),
        spool_directory_(std::move(spool_directory)),
        quiet_(quiet) {}
  bool record(int fd, std::uint32_t peer_pid) override;

 private:
  // Runs the converter; returns the pid. Reports input damage and keeps what came before it.
  std::uint32_t convert(InputStream& input, OutputStream& out, std::uint32_t peer_pid,
                        bool& complete);
  bool record_to_file(InputStream& input, std::uint32_t peer_pid);
  bool record_to_stdout(InputStream& input, std::uint32_t peer_pid);
  void copy_to_stdout(const std::string& path);

  TraceConverter convert_;
  std::optional<std::string> directory_;
  std::string spool_directory_;
  bool quiet_;
  std::mutex stdout_mutex_;
};

}  // namespace rtrace::recorder
