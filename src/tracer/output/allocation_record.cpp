#include "tracer/output/allocation_record.h"

#include <cstring>

namespace rtrace::tracer {

std::size_t expand_allocation_record(const char* record, char* out, std::size_t room) {
  AllocationFields fields{};
  std::memcpy(&fields, record, kAllocationFixed);
  const std::uintptr_t* frames = allocation_record_frames(const_cast<char*>(record));
  return write_head_packets(fields.head, sprtrace::kCallAlloc, fields.name, fields.size, nullptr, 0,
                            frames, out, room);
}

compact::CallFields allocation_record_call(const char* record) {
  AllocationFields fields{};
  std::memcpy(&fields, record, kAllocationFixed);
  return ring_call_fields(fields.head, sprtrace::kCallAlloc, fields.name, fields.size,
                          allocation_record_frames(const_cast<char*>(record)));
}

}  // namespace rtrace::tracer
