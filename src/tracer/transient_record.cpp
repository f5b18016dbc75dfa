#include "tracer/transient_record.h"

#include <cstring>

#include "tracer/call_packets.h"
#include "tracer/transient_release.h"

namespace rtrace::tracer {
namespace {

struct Fields {
  std::uint32_t type;
  std::uint32_t payload;
  std::uint32_t resource;
  std::uint32_t context;
  std::uint32_t timestamp;
  std::uint32_t frame_count;
  std::uint64_t id;
  std::uint64_t size;
  std::uint64_t name;
  std::uint32_t release_frame_count;
};
static_assert(offsetof(Fields, release_frame_count) + 4 == 52, "the layout of transient_record.h");

}  // namespace

std::size_t write_transient(char* record, const RtraceCall& call, std::uint32_t context_mask,
                            std::uint32_t timestamp_ms, std::uint32_t frame_count,
                            std::uint32_t release_frame_count) {
  const auto* frames_end = reinterpret_cast<const char*>(transient_frames(record) + frame_count);
  const auto length = static_cast<std::size_t>(frames_end - record);
  const Fields fields{kTransientRecord,
                      static_cast<std::uint32_t>(length - 8),
                      call.resource_type,
                      context_mask,
                      timestamp_ms,
                      frame_count,
                      call.id,
                      call.size,
                      reinterpret_cast<std::uintptr_t>(call.name),
                      release_frame_count};
  std::memcpy(record, &fields, 52);
  return length;
}

std::size_t expand_transient(const char* record, char* out, std::size_t room) {
  Fields fields{};
  std::memcpy(&fields, record, 52);
  const std::uintptr_t* frames = transient_frames(const_cast<char*>(record));
  if (fields.release_frame_count > fields.frame_count) {
    return 0;  // never written so; nothing sensible to expand
  }
  const RtraceCall call{fields.resource,
                        sprtrace::kCallAlloc,
                        reinterpret_cast<const char*>(static_cast<std::uintptr_t>(fields.name)),
                        fields.size,
                        fields.id,
                        nullptr,
                        0};
  const CallPackets packets(call, fields.frame_count);
  if (packets.size() > room) {
    return 0;
  }
  packets.write(out, fields.context, fields.timestamp, frames);
  return append_release(out, packets.size(), room, frames, fields.release_frame_count);
}

}  // namespace rtrace::tracer
