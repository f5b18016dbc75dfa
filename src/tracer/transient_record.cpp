#include "tracer/transient_record.h"

#include <cstring>

#include "tracer/call_packets.h"
#include "tracer/transient_release.h"

namespace rtrace::tracer {

std::size_t expand_transient(const char* record, char* out, std::size_t room) {
  TransientFields fields{};
  std::memcpy(&fields, record, kTransientFixed);
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
