#include "tracer/call_encoding.h"

#include <climits>
#include <cstring>

namespace rtrace::tracer {

using sprtrace::PacketType;

std::size_t call_payload_bound(const RtraceCall& call, std::uint32_t frame_count) {
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

void encode_call(PacketEncoder& encoder, const RtraceCall& call, std::uint32_t context_mask,
                 std::uint32_t timestamp_ms, const std::uintptr_t* frames,
                 std::uint32_t frame_count) {
  encoder.begin_packet(PacketType::FunctionCall);
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
    encoder.begin_packet(PacketType::FunctionArgs);
    encoder.u32(call.arg_count);
    for (std::uint32_t i = 0; i < call.arg_count; ++i) {
      encoder.string(call.args[i].name);
      encoder.string(call.args[i].value);
    }
    encoder.end_packet();
  }
  encoder.begin_packet(PacketType::Backtrace);
  encoder.u32(frame_count);
  encoder.pointers(frames, frame_count);
  encoder.end_packet();
}

std::size_t append_release(char* space, std::size_t used, std::size_t bound,
                           const std::uintptr_t* frames, std::uint32_t frame_count) {
  // CALL: [type][size] resource, context, timestamp, kind, name, size, id (8-byte pointer).
  constexpr std::size_t kKindOffset = 8 + 3 * 4;
  constexpr std::size_t kSizeFromEnd = 4 + 8;
  std::uint32_t payload = 0;
  std::memcpy(&payload, space + 4, sizeof payload);
  const std::size_t call_length = 8 + std::size_t{payload};
  if (call_length > used || used + call_length > bound) {
    return 0;
  }
  char* release = space + used;
  std::memcpy(release, space, call_length);
  const std::uint32_t kind = sprtrace::kCallFree;
  const std::uint32_t size = 0;
  std::memcpy(release + kKindOffset, &kind, sizeof kind);
  std::memcpy(release + call_length - kSizeFromEnd, &size, sizeof size);
  PacketEncoder backtrace(release + call_length, bound - used - call_length);
  backtrace.begin_packet(PacketType::Backtrace);
  backtrace.u32(frame_count);
  backtrace.pointers(frames, frame_count);
  backtrace.end_packet();
  return backtrace.overflowed() ? 0 : used + call_length + backtrace.size();
}

}  // namespace rtrace::tracer
