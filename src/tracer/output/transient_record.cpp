#include "tracer/output/transient_record.h"

#include <cstdint>

#include "tracer/output/call_packets.h"
#include "tracer/output/transient_release.h"

namespace rtrace::tracer {

std::size_t expand_transient(const char* record, SharedFrames& seen, char* out, std::size_t room) {
  TransientFields fields{};
  const std::uintptr_t* frames = read_transient(record, seen, fields);
  if (frames == nullptr) {
    return 0;
  }
  const std::size_t length = write_head_packets(fields.head, sprtrace::kCallAlloc, fields.name,
                                                fields.size, nullptr, 0, frames, out, room);
  if (length == 0) {
    return 0;
  }
  return append_release(out, length, room, frames, fields.release_frame_count);
}

void skip_transient(const char* record, SharedFrames& seen) {
  TransientFields fields{};
  read_transient(record, seen, fields);
}

}  // namespace rtrace::tracer
