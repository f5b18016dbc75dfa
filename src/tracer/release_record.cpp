#include "tracer/release_record.h"

#include <cstring>

namespace rtrace::tracer {

std::size_t expand_release_record(const char* record, char* out, std::size_t room) {
  ReleaseFields fields{};
  std::memcpy(&fields, record, kReleaseFixed);
  const std::uintptr_t* frames = release_record_frames(const_cast<char*>(record));
  return write_head_packets(fields.head, sprtrace::kCallFree, fields.name, 0, nullptr, 0, frames,
                            out, room);
}

compact::CallFields release_record_call(const char* record) {
  ReleaseFields fields{};
  std::memcpy(&fields, record, kReleaseFixed);
  const char* name = reinterpret_cast<const char*>(static_cast<std::uintptr_t>(fields.name));
  compact::CallFields call;
  call.kind = static_cast<std::uint8_t>(sprtrace::kCallFree);
  call.function = {name != nullptr ? name : "", CallPackets::text_length(name)};
  call.resource_type = fields.head.resource;
  call.context = fields.head.context;
  call.timestamp = fields.head.timestamp;
  call.resource_id = fields.head.id;
  call.size = 0;
  // 8-byte aligned in the ring (ring_call_record.h), and a uintptr_t is a uint64_t where the
  // compact format is written.
  static_assert(sizeof(std::uintptr_t) == sizeof(std::uint64_t));
  call.frames =
      reinterpret_cast<const std::uint64_t*>(release_record_frames(const_cast<char*>(record)));
  call.frame_count = fields.head.frame_count;
  return call;
}

}  // namespace rtrace::tracer
