#include "tracer/transient_release.h"

#include <cstring>

#include "tracer/libc_memory.h"
#include "tracer/packet_encoder.h"

namespace rtrace::tracer {

using sprtrace::PacketType;

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
  libc_copy(release, space, call_length);
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
