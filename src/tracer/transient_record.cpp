#include "tracer/transient_record.h"

#include <cstdint>
#include <cstring>

#include "tracer/call_packets.h"
#include "tracer/transient_release.h"

namespace rtrace::tracer {

const std::uintptr_t* read_transient(const char* record, SharedFrames& seen,
                                     TransientFields& fields) {
  std::memcpy(&fields, record, kTransientFixed);
  if (fields.release_frame_count != 0 && fields.release_frame_count != fields.head.frame_count) {
    return nullptr;  // never written so; nothing sensible to expand
  }
  return seen.restore(transient_frames(const_cast<char*>(record)), fields.head.frame_count,
                      fields.kept_frame_count);
}

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

bool transient_record_allocation(const char* record, SharedFrames& seen,
                                 compact::CallFields& allocation, bool& release_has_stack) {
  TransientFields fields{};
  const std::uintptr_t* frames = read_transient(record, seen, fields);
  if (frames == nullptr) {
    return false;
  }
  allocation =
      ring_call_fields(fields.head, sprtrace::kCallAlloc, fields.name, fields.size, frames);
  release_has_stack = fields.release_frame_count > 0;  // then all of them (read_transient)
  return true;
}

void skip_transient(const char* record, SharedFrames& seen) {
  TransientFields fields{};
  read_transient(record, seen, fields);
}

}  // namespace rtrace::tracer
