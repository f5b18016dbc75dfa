// How the fields of the sp-rtrace binary handshake (protocol/sprtrace_handshake.h) travel in
// the model: as metadata of the TraceHeader ("sprtrace.protocol_version", "sprtrace.byte_order",
// "sprtrace.pointer_size"), which other formats' writers ignore.
#pragma once

#include "model/records.h"
#include "protocol/sprtrace_handshake.h"

namespace rtrace::sprtrace {

// The header a reader pushes for `handshake`.
TraceHeader header_from_handshake(const Handshake& handshake);

// The handshake a writer sends for `header`: byte order and pointer size from the metadata
// (little-endian, 8 bytes when absent), the architecture from the header (a view of
// `header.arch`). The protocol version is left at what the writer writes.
Handshake handshake_for(const TraceHeader& header);

}  // namespace rtrace::sprtrace
