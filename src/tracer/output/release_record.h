// A release's record in its thread's ring (rtrace_prepare_held without arguments: close, fclose,
// free, munmap, ... of every module): one internal record of fixed size instead of the CALL and
// BTRC packets. The traced thread writes the head (resource type, id, context, timestamp, frame
// count) and the name's address, and unwinds the frames (only under free-backtraces) straight
// into the ring; the drain expands the record (expand_release_record, called by record_merge)
// into exactly the bytes CallPackets writes for the release, or, in the compact format, hands
// the transcoder the call those bytes stand for (release_record_call). No strlen, no packet
// encoding on the traced thread. Never allocates.
//
// The record is held as any release's (rtrace_hold): its ticket stays taken until the real call
// returned, and a failed call voids it (the drain never sees it).
//
// Layout (ring_call_record.h): the head, then [name address:8], then the frames.
#pragma once

#include <cstddef>
#include <cstdint>

#include "protocol/compact_encoder.h"
#include "protocol/sprtrace_packets.h"
#include "tracer/output/ring_call_record.h"
#include "tracer/api/tracer_api.h"

namespace rtrace::tracer {

// Not a packet type of the protocol (its packets are upper-case): never leaves the tracer.
inline constexpr std::uint32_t kReleaseRecord = sprtrace::packet_type("rtRR");

// The fixed fields: the head, then the name's address.
struct ReleaseFields {
  RingCallHead head;
  std::uint64_t name;
};
inline constexpr std::size_t kReleaseFixed = 40;
static_assert(sizeof(ReleaseFields) == kReleaseFixed);

// Whether `call` can be recorded so: a release of size 0 without arguments (the drain writes
// exactly these fields back). Others take the packets' path (rtrace_prepare).
inline bool fits_release_record(const RtraceCall& call) {
  return call.kind == sprtrace::kCallFree && call.size == 0 && call.arg_count == 0;
}

// Room a release record with up to `depth` frames needs in the ring.
constexpr std::size_t release_record_bound(std::uint32_t depth) {
  return ring_record_bound(kReleaseFixed, depth);
}

// Where the frames of the record at `record` go.
inline std::uintptr_t* release_record_frames(char* record) {
  return ring_record_frames(record, kReleaseFixed);
}

// Writes the fixed fields of a record whose `frame_count` frames are in place already; returns
// its length. `call.name` must stay valid until the trace is written (a string literal).
// Inline: on every release's path.
inline std::size_t write_release_record(char* record, const RtraceCall& call,
                                        std::uint32_t context_mask, std::uint32_t timestamp_ms,
                                        std::uint32_t frame_count) {
  const std::size_t length = ring_record_length(record, release_record_frames(record), frame_count);
  write_ring_call_head(record, kReleaseRecord, length, call, context_mask, timestamp_ms,
                       frame_count);
  store_ring_field(record, offsetof(ReleaseFields, name),
                   std::uint64_t{reinterpret_cast<std::uintptr_t>(call.name)});
  return length;
}

inline bool is_release_record(const char* record) {
  return ring_record_type(record) == kReleaseRecord;
}

// Drain side: writes the CALL and BTRC packets of the record at `record` into `out` (the bytes
// CallPackets writes for the release); returns their length, 0 when they need more than `room`
// bytes.
std::size_t expand_release_record(const char* record, char* out, std::size_t room);

// Drain side, the compact format: the fields of the call those packets stand for, as the compact
// transcoder reads them from the packets (the name cut as CallPackets cuts it). The name and the
// frames point into the record and the program's memory: valid while the record is.
compact::CallFields release_record_call(const char* record);

}  // namespace rtrace::tracer
