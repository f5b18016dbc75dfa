// The packets of one traced call, as the producer puts them into its ring: CALL, then FARG when
// the call has arguments, then BTRC (an empty one when there are no frames), as the original
// tracer wrote them. Encoding only: no clock, no thread state; the caller passes the context
// mask and the timestamp. Never allocates (hot path).
#pragma once

#include <cstddef>
#include <cstdint>

#include "tracer/packet_encoder.h"
#include "tracer/tracer_api.h"

namespace rtrace::tracer {

// The most bytes encode_call can write for `call` with `frame_count` frames.
std::size_t call_payload_bound(const RtraceCall& call, std::uint32_t frame_count);

void encode_call(PacketEncoder& encoder, const RtraceCall& call, std::uint32_t context_mask,
                 std::uint32_t timestamp_ms, const std::uintptr_t* frames,
                 std::uint32_t frame_count);

// The release half of a transient call (rtrace_record_transient): appends, after the `used`
// bytes at `space` that begin with the allocation's CALL packet, a copy of that packet with kind
// free and size 0 (cheaper than encoding it again: no second timestamp, name or context), then
// its BTRC. Returns the length of everything, 0 when it does not fit in `bound`.
std::size_t append_release(char* space, std::size_t used, std::size_t bound,
                           const std::uintptr_t* frames, std::uint32_t frame_count);

}  // namespace rtrace::tracer
