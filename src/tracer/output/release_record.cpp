#include "tracer/output/release_record.h"

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
  return ring_call_fields(fields.head, sprtrace::kCallFree, fields.name, 0,
                          release_record_frames(const_cast<char*>(record)));
}

}  // namespace rtrace::tracer
