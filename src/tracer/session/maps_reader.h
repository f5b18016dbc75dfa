// Reads /proc/self/maps with plain system calls (no allocation, no stdio) and encodes an MMAP
// packet for every executable mapping that has a name, in /proc order ([vdso] included).
#pragma once

#include "tracer/output/packet_encoder.h"

namespace rtrace::tracer {

// The room a session gives the MMAP packets of one reading (a larger set is dropped whole).
inline constexpr std::size_t kMaxMapsPayload = std::size_t{256} * 1024;

// Appends the MMAP packets to `encoder`; false when the maps could not be read.
bool encode_executable_mappings(PacketEncoder& encoder);

}  // namespace rtrace::tracer
