// Removing our half-written temporary files when the process is killed by a signal.
//
// An output file is written under a temporary name and renamed into place when complete (see
// output_stream.h). Destructors remove an abandoned temporary, but SIGINT, SIGTERM and SIGHUP end
// the process without running them; the handler installed here removes every registered
// temporary and then dies of the same signal, so the shell still sees the signal.
#pragma once

#include <string>

namespace rtrace {

// Creates a unique file from `pattern` (ending in "XXXXXX", replaced in place) with mkostemp and
// registers it for removal on a fatal signal. Signals are blocked in between, so no temporary is
// ever left unregistered. Returns the open descriptor, or -1 with errno set.
int create_registered_temporary(std::string& pattern);

// The temporary at `path` was renamed or removed: forget it. Safe to call for unknown paths.
void unregister_temporary(const std::string& path);

}  // namespace rtrace
