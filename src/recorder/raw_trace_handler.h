// Keeps each connection's binary stream as it came, in a file named as trace_file_names.h says
// (`NAME.PID.rtrace`, or the sp-rtrace style's `PID-N.rtrace`), never replacing a file. A stream
// that breaks off (rtrace's tracer did not close it: the process was killed) is kept, with a
// warning naming the file, and counts as not recorded in full. With `strip_extensions` (sp-rtrace)
// rtrace's extension packets are left out, so that the file holds the original protocol only. On a
// terminal (without --quiet) a progress line shows the bytes recorded by all connections together
// and the rate, while no traced process writes to that terminal (terminal_writers.h); each file,
// once complete, is announced on a line of its own: "rtrace: trace FILE, SIZE".
// A process that asks for its file (file-from-recorder=1) is given the file's descriptor and
// writes it itself (trace_file_passing.h): the file's name and content are the same. Not with
// `strip_extensions`, which needs the stream, nor with an observer (stream_tap.h), which reads the
// stream as it comes besides.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "io/output_stream.h"
#include "io/progress.h"
#include "recorder/space_reserve.h"
#include "recorder/stream_tap.h"
#include "recorder/terminal_writers.h"
#include "recorder/trace_file_names.h"
#include "recorder/trace_handler.h"

namespace rtrace::recorder {

class RawTraceHandler final : public TraceHandler {
 public:
  RawTraceHandler(TraceFileNames names, bool quiet, bool strip_extensions,
                  std::optional<StreamObserver> observer = std::nullopt)
      : names_(std::move(names)),
        quiet_(quiet),
        strip_extensions_(strip_extensions),
        observer_(std::move(observer)),
        progress_("recording", std::nullopt, Progress::shown_on_stderr(quiet)) {
    progress_.draw_only_while([this] { return !terminal_writers_.any(); });
  }
  bool record(int fd, std::uint32_t peer_pid) override;

 private:
  // The process writes `out`'s temporary itself; the handler names the file at the end.
  // `argv0`: the process's, read while it waited for the file. `reserve`: freed when the
  // process runs out of space, for the trace's end.
  bool record_passed(int fd, std::uint32_t peer_pid, const std::string& argv0, OutputStream& out,
                     SpaceReserve& reserve);
  // The stream comes through the connection and is copied into the file.
  // `read_already`: its first bytes, read before. `argv0`: the process's, when it could be read
  // (the stream's PINF packet wins).
  bool record_copied(int fd, std::uint32_t peer_pid, const std::string& argv0,
                     std::span<const std::uint8_t> read_already);
  // What the file holds besides the trace's records, said in warnings at the commit.
  struct Damage {
    bool broke_off = false;          // no orderly end: the process died or the connection broke
    bool out_of_space = false;       // a write failed for lack of space; the trace ends there
    std::uint64_t capped_sizes = 0;  // calls whose size the file holds capped
    std::string write_error{};       // why the recorder's writes of the file stopped, if they did
  };
  // Names the file after the process and says so; false (with a warning) when it is damaged.
  bool commit(OutputStream& out, std::uint32_t pid, const std::string& argv0, Damage damage);

  TraceFileNames names_;
  bool quiet_;
  bool strip_extensions_;
  std::optional<StreamObserver> observer_;           // reads each stream as it comes besides
  TerminalWriters terminal_writers_{STDERR_FILENO};  // the progress line's terminal
  Progress progress_;                                // shared by the connections' threads
};

}  // namespace rtrace::recorder
