// Streaming decoder of mpatrol tracing files (`MTRC`), versions 1.0 to 1.5.x, written by a 32- or
// 64-bit program of either byte order.
//
// Memory stays constant whatever the file size: records are decoded in place from the input's
// buffer, and the only state is the two 32-slot name caches.
#pragma once

#include "formats/mpatrol/mpatrol_event.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"

namespace rtrace::mpatrol {

// Longest function or file name accepted (mptrace itself stops at 1023 bytes).
inline constexpr std::size_t kMaxNameLength = std::size_t{64} << 10;

// Calls visitor.header(), visitor.event() for every record, then visitor.end().
//
// A file that stops without the end marker (a crashed program), even inside a record, is read up
// to its last complete record and ends with a warning. A reference to a name-cache slot that was
// never defined reads as no name (warning); data after the end marker is ignored (warning).
// Corrupt data (bad magic, an unknown record type, a version newer than 1.5.x, a bad name field)
// throws InputError naming the byte offset, after every event before it was delivered; end() is
// not called then.
void decode(InputStream& input, Visitor& visitor, Diagnostics& diagnostics);

}  // namespace rtrace::mpatrol
