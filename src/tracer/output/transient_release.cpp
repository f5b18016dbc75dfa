#include "tracer/output/transient_release.h"

#include <cstring>

#include "protocol/sprtrace_packets.h"
#include "tracer/core/libc_memory.h"

namespace rtrace::tracer {

using sprtrace::PacketType;

std::size_t append_release(char* space, std::size_t used, std::size_t bound,
                           const std::uintptr_t* frames, std::uint32_t frame_count) {
  // CALL: [type][size] resource, context, timestamp, kind, name, size, id (8-byte pointer).
  constexpr std::size_t kKindOffset = 8 + 3 * 4;
  constexpr std::size_t kSizeFromEnd = 4 + 8;
  // BTRC: [type][size] count, frames. Written field by field: on every transfer's path, where a
  // bounds-checked encoder cost more than the copy of the CALL (about 87 instructions, not 55).
  constexpr std::size_t kBacktraceFixed = 8 + 4;
  std::uint32_t payload = 0;
  std::memcpy(&payload, space + 4, sizeof payload);
  const std::size_t call_length = 8 + std::size_t{payload};
  const std::size_t frame_bytes = sizeof *frames * std::size_t{frame_count};
  const std::size_t length = used + call_length + kBacktraceFixed + frame_bytes;
  if (call_length > used || length > bound) {
    return 0;
  }
  char* release = space + used;
  libc_copy(release, space, call_length);
  const std::uint32_t kind = sprtrace::kCallFree;
  const std::uint32_t size = 0;
  std::memcpy(release + kKindOffset, &kind, sizeof kind);
  std::memcpy(release + call_length - kSizeFromEnd, &size, sizeof size);
  char* backtrace = release + call_length;
  const auto type = static_cast<std::uint32_t>(PacketType::Backtrace);
  const auto backtrace_payload = static_cast<std::uint32_t>(4 + frame_bytes);
  std::memcpy(backtrace, &type, sizeof type);
  std::memcpy(backtrace + 4, &backtrace_payload, sizeof backtrace_payload);
  std::memcpy(backtrace + 8, &frame_count, sizeof frame_count);
  if (frame_bytes > 0) {
    libc_copy(backtrace + kBacktraceFixed, frames, frame_bytes);
  }
  return length;
}

}  // namespace rtrace::tracer
