// The recorder's side of file-from-recorder=1 (the exchange: protocol/file_from_recorder.h):
// the traced process writes the file the recorder made and passed it, so the trace's bytes are
// copied once (from the tracer's buffers to the file) instead of through the connection and the
// recorder.
#pragma once

#include <functional>

namespace rtrace::recorder {

// Sends the answer: `file`'s descriptor, or (file < 0) none. False when the process is gone.
bool send_trace_file(int connection, int file);

// Reads `connection` to its end (the process closed it or died) and says whether the process
// said it closed the trace in order. `every_100ms`, when set, is called about every 100 ms
// meanwhile. Throws std::runtime_error on a read error.
bool wait_for_trace_close(int connection, const std::function<void()>& every_100ms);

}  // namespace rtrace::recorder
