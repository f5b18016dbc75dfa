// How `rtrace record` names its trace files (-o).
//
// -o names an existing directory, or a file name pattern:
//   %p the process id, %n the program's name (the file name of its argv[0], as the process calls
//   itself), %h the host name, %t the time the recording started (UTC, 20261207T153000Z, so that
//   names sort by time), %% a percent sign.
// The fields are expanded in the pattern's last component only; its directory must exist.
// Without -o the traces go to the current directory. In a directory a trace is named
// `NAME.PID.rtrace` (`NAME.PID.rtrace.txt` for -P's text), or, in the sp-rtrace compatible style
// (the sp-rtrace command, --format sp-rtrace), `PID-N.rtrace` with N from 0.
//
// A name never replaces a file: a second trace of one pid (an exec, tracing toggled off and on
// again), or a pattern without %p used for several processes, gets a number: `NAME.PID.1.rtrace`
// (the number goes before the trace suffix, or at the end of a name that has no such suffix),
// the smallest one whose file does not exist (OutputStream::commit_unique).
#pragma once

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>

#include "io/output_stream.h"

namespace rtrace::recorder {

enum class TraceNameStyle : std::uint8_t {
  Program,   // NAME.PID.rtrace
  SpRtrace,  // PID-N.rtrace, the original's names
};

// A trace's file name in its directory: the first choice `stem + suffix`, numbered as above.
struct TraceName {
  std::string stem;
  std::string suffix;
  bool numbered_from_zero = false;  // the sp-rtrace style: PID-0.rtrace is the first name
};

// What the names are made of that is the same for every trace of a run.
struct NameFields {
  std::string host;
  std::time_t start = 0;
};

// The fields of this host, now.
NameFields current_name_fields();

class TraceFileNames {
 public:
  // `output`: -o's value (nothing: the current directory). `suffix`: ".rtrace" or
  // ".rtrace.txt". Throws std::invalid_argument naming the path when -o is neither an existing
  // directory nor a pattern in one (a missing directory, a FIFO or device, a bad field).
  TraceFileNames(const std::optional<std::string>& output, TraceNameStyle style, std::string suffix,
                 NameFields fields);

  // Where the traces go (the pattern's directory), made absolute.
  const std::string& directory() const { return directory_; }
  bool is_pattern() const { return pattern_.has_value(); }
  // The name of a trace of process `pid` called `program` (its argv[0]; a path is cut to its
  // file name; empty or unknown: "unknown").
  TraceName name(std::string_view program, std::uint32_t pid) const;

 private:
  std::string expand(std::string_view program, std::uint32_t pid) const;

  std::string directory_;
  std::optional<std::string> pattern_;  // the last component of a pattern
  std::string option_;                  // -o as given, for messages
  TraceNameStyle style_;
  std::string suffix_;
  NameFields fields_;
};

// Names `out` (an OutputStream::in_directory of the names' directory) `name`, numbered as it
// says; returns the path.
std::string commit_trace(OutputStream& out, const TraceName& name);

// The program name of a process as its argv[0] gives it: its file name, without a path.
std::string program_name(std::string_view argv0);

// argv[0] of process `pid` from /proc (read while the process is alive); nothing when it is gone.
std::optional<std::string> argv0_of(std::uint32_t pid);

}  // namespace rtrace::recorder
