// The release half of a transient call (rtrace_record_transient), written after its allocation's
// packets (call_packets.h) in the same reservation. Never allocates (hot path).
#pragma once

#include <cstddef>
#include <cstdint>

namespace rtrace::tracer {

// The release half of a transient call (rtrace_record_transient): appends, after the `used`
// bytes at `space` that begin with the allocation's CALL packet, a copy of that packet with kind
// free and size 0 (cheaper than encoding it again: no second timestamp, name or context), then
// its BTRC. Returns the length of everything, 0 when it does not fit in `bound`.
std::size_t append_release(char* space, std::size_t used, std::size_t bound,
                           const std::uintptr_t* frames, std::uint32_t frame_count);

}  // namespace rtrace::tracer
