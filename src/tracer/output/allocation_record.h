// An allocation's record in its thread's ring (rtrace_record without arguments: malloc, calloc,
// realloc's new block, operator new, ... of every module): one internal record of fixed size
// instead of the CALL and BTRC packets, as a release's (release_record.h). The traced thread
// writes the head (resource type, id, context, timestamp, frame count), the size and the name's
// address, and unwinds the frames straight into the ring; the drain expands the record
// (expand_allocation_record, called by record_merge) into exactly the bytes CallPackets writes
// for the allocation, or, in the compact format, hands the encoder the call those bytes stand for
// (allocation_record_call). No strlen, no packet encoding and no copy of the frames on the traced
// thread. Never allocates.
//
// Layout (ring_call_record.h): the head, then [size:8][name address:8], then the frames.
#pragma once

#include <cstddef>
#include <cstdint>

#include "protocol/compact_encoder.h"
#include "protocol/sprtrace_packets.h"
#include "tracer/api/tracer_api.h"
#include "tracer/output/ring_call_record.h"

namespace rtrace::tracer {

// Not a packet type of the protocol (its packets are upper-case): never leaves the tracer.
inline constexpr std::uint32_t kAllocationRecord = sprtrace::packet_type("rtAR");

// The fixed fields: the head, the size, then the name's address.
struct AllocationFields {
  RingCallHead head;
  std::uint64_t size;
  std::uint64_t name;
};
inline constexpr std::size_t kAllocationFixed = 48;
static_assert(sizeof(AllocationFields) == kAllocationFixed);

// Whether `call` can be recorded so: an allocation without arguments (the drain writes exactly
// these fields back). Others take the packets' path (rtrace_prepare).
inline bool fits_allocation_record(const RtraceCall& call) {
  return call.kind == sprtrace::kCallAlloc && call.arg_count == 0;
}

// Room an allocation record with up to `depth` frames needs in the ring.
constexpr std::size_t allocation_record_bound(std::uint32_t depth) {
  return ring_record_bound(kAllocationFixed, depth);
}

// Where the frames of the record at `record` go.
inline std::uintptr_t* allocation_record_frames(char* record) {
  return ring_record_frames(record, kAllocationFixed);
}

// Writes the fixed fields of a record whose `frame_count` frames are in place already; returns
// its length. `call.name` must stay valid until the trace is written (a string literal).
// Inline: on every allocation's path.
inline std::size_t write_allocation_record(char* record, const RtraceCall& call,
                                           std::uint32_t context_mask, std::uint32_t timestamp_ms,
                                           std::uint32_t frame_count) {
  const std::size_t length =
      ring_record_length(record, allocation_record_frames(record), frame_count);
  write_ring_call_head(record, kAllocationRecord, length, call, context_mask, timestamp_ms,
                       frame_count);
  store_ring_field(record, offsetof(AllocationFields, size), std::uint64_t{call.size});
  store_ring_field(record, offsetof(AllocationFields, name),
                   std::uint64_t{reinterpret_cast<std::uintptr_t>(call.name)});
  return length;
}

inline bool is_allocation_record(const char* record) {
  return ring_record_type(record) == kAllocationRecord;
}

// Drain side: writes the CALL and BTRC packets of the record at `record` into `out` (the bytes
// CallPackets writes for the allocation); returns their length, 0 when they need more than
// `room` bytes.
std::size_t expand_allocation_record(const char* record, char* out, std::size_t room);

// Drain side, the compact format: the fields of the call those packets stand for, as the compact
// transcoder reads them from the packets (the name cut as CallPackets does; the size whole, as
// the CALL and RSIZ packets carry it).
// The name and the frames point into the record and the program's memory: valid while the record
// is.
compact::CallFields allocation_record_call(const char* record);

}  // namespace rtrace::tracer
