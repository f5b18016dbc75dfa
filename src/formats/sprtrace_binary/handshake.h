// The sp-rtrace binary handshake, and how its fields travel in the model: as metadata of the
// TraceHeader ("sprtrace.protocol_version", "sprtrace.byte_order", "sprtrace.pointer_size"),
// which other formats' writers ignore.
#pragma once

#include <cstdint>
#include <string>

#include "model/records.h"

namespace rtrace::sprtrace {

struct Handshake {
  std::uint8_t major = 2;
  std::uint8_t minor = 0;
  std::string arch;
  bool big_endian = false;
  std::uint8_t pointer_size = 8;
};

// The header a reader pushes for `handshake`.
TraceHeader header_from_handshake(const Handshake& handshake);

// The handshake a writer sends for `header`: byte order and pointer size from the metadata
// (little-endian, 8 bytes when absent), the architecture from the header. The protocol version
// is left at what the writer writes.
Handshake handshake_for(const TraceHeader& header);

}  // namespace rtrace::sprtrace
