// The packets of one traced call, as the producer puts them into its ring: CALL, then FARG when
// the call has arguments, then BTRC (an empty one when there are no frames), as the original
// tracer wrote them. Encoding only: no clock, no thread state; the caller passes the context
// mask and the timestamp. Never allocates (hot path).
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "tracer/packet_encoder.h"
#include "tracer/tracer_api.h"

namespace rtrace::tracer {

// Inline: they run for every traced call, in the module's thread.

// The most bytes encode_call can write for `call` with `frame_count` frames.
inline std::size_t call_payload_bound(const RtraceCall& call, std::uint32_t frame_count) {
  std::size_t bytes = 8 + 4 * 4 + 2 + 3 + std::strlen(call.name) + 4 + 8;
  bytes += 8 + 4 + 8 * std::size_t{frame_count};
  if (call.arg_count > 0) {
    bytes += 8 + 4;
    for (std::uint32_t i = 0; i < call.arg_count; ++i) {
      bytes += std::size_t{10} + std::strlen(call.args[i].name) + std::strlen(call.args[i].value);
    }
  }
  return bytes;
}

inline void encode_call(PacketEncoder& encoder, const RtraceCall& call, std::uint32_t context_mask,
                        std::uint32_t timestamp_ms, const std::uintptr_t* frames,
                        std::uint32_t frame_count) {
  encoder.begin_packet(sprtrace::PacketType::FunctionCall);
  encoder.u32(call.resource_type);
  encoder.u32(context_mask);
  encoder.u32(timestamp_ms);
  encoder.u32(call.kind);
  encoder.string(call.name);
  encoder.u32(call.size > UINT32_MAX ? UINT32_MAX : static_cast<std::uint32_t>(call.size));
  encoder.pointer(call.id);
  encoder.end_packet();
  // As the original: the arguments (if any) right after the call, then a backtrace packet after
  // every call, an empty one when it has no frames. Which arguments a call has is the module's
  // choice: the memory module sends the alignment only with `args=1`, the file and shm
  // modules always send theirs (paths, flags, ...), as the original modules do.
  if (call.arg_count > 0) {
    encoder.begin_packet(sprtrace::PacketType::FunctionArgs);
    encoder.u32(call.arg_count);
    for (std::uint32_t i = 0; i < call.arg_count; ++i) {
      encoder.string(call.args[i].name);
      encoder.string(call.args[i].value);
    }
    encoder.end_packet();
  }
  encoder.begin_packet(sprtrace::PacketType::Backtrace);
  encoder.u32(frame_count);
  encoder.pointers(frames, frame_count);
  encoder.end_packet();
}

// The release half of a transient call (rtrace_record_transient): appends, after the `used`
// bytes at `space` that begin with the allocation's CALL packet, a copy of that packet with kind
// free and size 0 (cheaper than encoding it again: no second timestamp, name or context), then
// its BTRC. Returns the length of everything, 0 when it does not fit in `bound`.
std::size_t append_release(char* space, std::size_t used, std::size_t bound,
                           const std::uintptr_t* frames, std::uint32_t frame_count);

}  // namespace rtrace::tracer
