// Room kept aside in a trace's folder for the trace's end. A traced program that fills its file
// system would otherwise leave a trace cut anywhere, which readers can only call "killed?"; with
// the reserve freed at that moment, the tracer writes what it holds and an end that says "no
// space" (protocol/file_from_recorder.h).
#pragma once

#include <string>

namespace rtrace::recorder {

class SpaceReserve {
 public:
  // Allocates `bytes` in `directory` to an unnamed file (O_TMPFILE: nothing to clean up, whatever
  // happens to the recorder). Holds nothing when the file system cannot (full already, or
  // without O_TMPFILE or fallocate): the trace then ends where the space did.
  SpaceReserve(const std::string& directory, long bytes);
  ~SpaceReserve();
  SpaceReserve(const SpaceReserve&) = delete;
  SpaceReserve& operator=(const SpaceReserve&) = delete;

  // Gives the space back to the file system.
  void release();
  bool holds() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

}  // namespace rtrace::recorder
