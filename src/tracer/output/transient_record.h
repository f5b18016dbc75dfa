// A transient call's record in its thread's ring (rtrace_record_transient, a memory transfer):
// one internal record instead of the four packets the trace holds for it (CALL + BTRC of the
// allocation, CALL + BTRC of its release). The traced thread writes a few fixed fields, the
// name's address and the frames (unwound straight into the ring); the drain expands the record
// into the four packets before anything is written (expand_transient, called by record_merge), so
// neither the binary protocol nor the text ever sees it; the compact writer encodes the same two
// calls from its fields (take_transient_allocation). Never allocates.
//
// Layout (ring_call_record.h): the head, then [size:8][name address:8][release frame count:4]
// [frames kept:4], then the frames kept. The head's frame count is the backtrace's; the record
// keeps its leading frames, the rest are the previous transient record's in the same ring
// (shared_frames.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "protocol/compact_encoder.h"
#include "protocol/sprtrace_packets.h"
#include "tracer/output/ring_call_record.h"
#include "tracer/output/shared_frames.h"
#include "tracer/api/tracer_api.h"

namespace rtrace::tracer {

// Not a packet type of the protocol (its packets are upper-case): never leaves the tracer.
inline constexpr std::uint32_t kTransientRecord = sprtrace::packet_type("rtTR");

// The fixed fields: the head, then the record's own.
struct TransientFields {
  RingCallHead head;
  std::uint64_t size;
  std::uint64_t name;
  std::uint32_t release_frame_count;
  std::uint32_t kept_frame_count;
};
inline constexpr std::size_t kTransientFixed = 56;
static_assert(offsetof(TransientFields, kept_frame_count) + 4 == kTransientFixed);

// Room a transient record with up to `depth` frames needs in the ring.
constexpr std::size_t transient_record_bound(std::uint32_t depth) {
  return ring_record_bound(kTransientFixed, depth);
}

// Where the frames of the record at `record` go.
inline std::uintptr_t* transient_frames(char* record) {
  return ring_record_frames(record, kTransientFixed);
}

// Writes the fixed fields of a record of `frame_count` frames whose first `kept_frame_count` are
// in place already (SharedFrames::keep says how many); the release carries `release_frame_count`
// of them (0, or all under free-backtraces: nothing else is read back). `call.name` must stay valid
// until the trace is written (the module's string literal). Returns the record's length. Inline: on
// every transfer's path.
inline std::size_t write_transient(char* record, const RtraceCall& call, std::uint32_t context_mask,
                                   std::uint32_t timestamp_ms, std::uint32_t frame_count,
                                   std::uint32_t kept_frame_count,
                                   std::uint32_t release_frame_count) {
  const std::size_t length = ring_record_length(record, transient_frames(record), kept_frame_count);
  write_ring_call_head(record, kTransientRecord, length, call, context_mask, timestamp_ms,
                       frame_count);
  store_ring_field(record, offsetof(TransientFields, size), std::uint64_t{call.size});
  store_ring_field(record, offsetof(TransientFields, name),
                   std::uint64_t{reinterpret_cast<std::uintptr_t>(call.name)});
  store_ring_field(record, offsetof(TransientFields, release_frame_count), release_frame_count);
  store_ring_field(record, offsetof(TransientFields, kept_frame_count), kept_frame_count);
  return length;
}

inline bool is_transient_record(const char* record) {
  return ring_record_type(record) == kTransientRecord;
}

// Drain side: the fixed fields of the record at `record` into `fields` and its whole backtrace,
// the shared frames taken from `seen` (the ring's consumer_frames); null when the record cannot
// have been written so. What expand_transient writes, and what the compact writer encodes
// without the packets (take_transient_allocation). Inline: on every transfer's way out.
inline const std::uintptr_t* read_transient(const char* record, SharedFrames& seen,
                                            TransientFields& fields) {
  static_assert(sizeof fields == kTransientFixed);  // every byte of `fields` is copied
  __builtin_memcpy(&fields, record, kTransientFixed);
  if (fields.release_frame_count != 0 && fields.release_frame_count != fields.head.frame_count) {
    return nullptr;  // never written so; nothing sensible to expand
  }
  return seen.restore(transient_frames(const_cast<char*>(record)), fields.head.frame_count,
                      fields.kept_frame_count);
}

// Drain side: writes the four packets of the record at `record` (as CallPackets and
// append_release write them: the same bytes as before the record existed) into `out`, its shared
// frames taken from `seen` (the ring's consumer_frames); returns their length, 0 when they need
// more than `room` bytes or the record is not one the producer writes.
std::size_t expand_transient(const char* record, SharedFrames& seen, char* out, std::size_t room);

// Drain side, the compact format: hands `take` the allocation those packets stand for, as the
// compact transcoder reads it from its packets (release_record_call's way for a release record),
// and whether its release carries the backtrace too; the release is otherwise the allocation's
// copy (compact_transient writes both in one record). Nothing when the record is not one the
// producer writes. The name points into the program's memory, the frames into `seen`: `take`
// uses them before the next record of the ring. The fields go to `take` as they are made, never
// default-initialised first nor copied: that cost the writer 52 instructions per transfer
// (callgrind, as bench/RESULTS.md, "The tracer's instructions per call", counts the writer).
template <typename Take>
void take_transient_allocation(const char* record, SharedFrames& seen, Take&& take) {
  // Not value-initialised: read_transient copies every byte of it.
  TransientFields fields;  // NOLINT(cppcoreguidelines-pro-type-member-init)
  const std::uintptr_t* frames = read_transient(record, seen, fields);
  if (frames == nullptr) {
    return;
  }
  // Then the release carries all of them (read_transient).
  const bool release_has_stack = fields.release_frame_count > 0;
  take(ring_call_fields(fields.head, sprtrace::kCallAlloc, fields.name, fields.size, frames),
       release_has_stack);
}

// Drain side: a record not written out (before the trace's floor) still tells `seen` its frames.
void skip_transient(const char* record, SharedFrames& seen);

}  // namespace rtrace::tracer
