// Reads /proc/self/maps with plain system calls (no allocation, no stdio) and encodes an MMAP
// packet for every executable mapping that has a name, in /proc order ([vdso] included).
#pragma once

#include "tracer/packet_encoder.h"

namespace rtrace::tracer {

// Appends the MMAP packets to `encoder`; false when the maps could not be read.
bool encode_executable_mappings(PacketEncoder& encoder);

}  // namespace rtrace::tracer
