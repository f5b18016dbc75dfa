#include "tracer/transient_record.h"

#include <cstring>

#include "tracer/transient_release.h"

namespace rtrace::tracer {

std::size_t expand_transient(const char* record, char* out, std::size_t room) {
  TransientFields fields{};
  std::memcpy(&fields, record, kTransientFixed);
  const std::uintptr_t* frames = transient_frames(const_cast<char*>(record));
  if (fields.release_frame_count > fields.head.frame_count) {
    return 0;  // never written so; nothing sensible to expand
  }
  const std::size_t length = write_head_packets(fields.head, sprtrace::kCallAlloc, fields.name,
                                                fields.size, nullptr, 0, frames, out, room);
  if (length == 0) {
    return 0;
  }
  return append_release(out, length, room, frames, fields.release_frame_count);
}

}  // namespace rtrace::tracer
