// The recorder's side of file-from-recorder=1 (the exchange: protocol/file_from_recorder.h):
// the traced process writes the file the recorder made and passed it, so the trace's bytes are
// copied once (from the tracer's buffers to the file) instead of through the connection and the
// recorder.
#pragma once

#include <functional>

namespace rtrace::recorder {

// Sends the answer: `file`'s descriptor, or (file < 0) none. False when the process is gone.
bool send_trace_file(int connection, int file);

// What the process said on its connection before it ended.
struct TraceClose {
  bool closed = false;        // it closed the trace in order
  bool out_of_space = false;  // a write of its trace failed for lack of space
};

// Reads `connection` to its end (the process closed it or died). When the process says it ran
// out of space, `out_of_space` is called (it frees the reserve) and the process is answered.
// `every_100ms`, when set, is called about every 100 ms meanwhile. Throws std::runtime_error on a
// read error.
TraceClose wait_for_trace_close(int connection, const std::function<void()>& out_of_space,
                                const std::function<void()>& every_100ms);

}  // namespace rtrace::recorder
