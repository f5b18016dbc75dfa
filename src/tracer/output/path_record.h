// An open's record in its thread's ring (rtrace_record_path: open, creat and their relatives):
// one internal record instead of the CALL, ARGS (`$path` and a hex value such as `$flags`) and
// BTRC packets. The traced thread writes a few fixed fields, copies the path (the caller's
// memory, gone after the call) and unwinds the frames straight into the ring; the names (the
// call's and the value's, the module's string literals) stay by address and the value as an
// integer. The drain formats and expands it (expand_path_record, called by record_merge) into
// exactly the bytes CallPackets writes for the call with those two arguments. Never allocates.
//
// Layout (ring_call_record.h): the head, then [name address:8][value name address:8][size:4]
// [value:4][path length:4][the path's bytes], then the frames.
#pragma once

#include <cstddef>
#include <cstdint>

#include "protocol/sprtrace_packets.h"
#include "tracer/output/call_packets.h"
#include "tracer/output/ring_call_record.h"
#include "tracer/api/tracer_api.h"

namespace rtrace::tracer {

// Not a packet type of the protocol (its packets are upper-case): never leaves the tracer.
inline constexpr std::uint32_t kPathRecord = sprtrace::packet_type("rtPR");

// The fixed fields: the head, then the record's own.
struct PathFields {
  RingCallHead head;
  std::uint64_t name;
  std::uint64_t value_name;
  std::uint32_t size;
  std::uint32_t value;
  std::uint32_t path_length;
};
inline constexpr std::size_t kPathFixed = 60;
static_assert(offsetof(PathFields, path_length) + 4 == kPathFixed);

// The longest path kept (a string field's limit, as CallPackets::kMaxText).
inline constexpr std::size_t kMaxPathText = 0xfff0;

// Room a record with a path of `path_length` bytes and up to `depth` frames needs in the ring.
constexpr std::size_t path_record_bound(std::size_t path_length, std::uint32_t depth) {
  return kPathFixed + path_length + 8 + sizeof(std::uintptr_t) * std::size_t{depth};
}

// Where the frames of the record at `record` with a path of `path_length` bytes go.
inline std::uintptr_t* path_record_frames(char* record, std::size_t path_length) {
  return ring_record_frames(record, kPathFixed + path_length);
}

// What a path record says besides the call's fixed fields.
struct PathArgument {
  const char* path;         // copied into the record
  std::size_t path_length;  // at most kMaxPathText
  const char* value_name;   // a string literal: kept by address
  std::uint32_t value;      // written as "0x<hex>" by the drain
};

// Writes the fixed fields and the path of a record whose `frame_count` frames are in place
// already (path_record_frames); returns its length. Inline: on every open's path.
inline std::size_t write_path_record(char* record, const RtraceCall& call,
                                     const PathArgument& argument, std::uint32_t context_mask,
                                     std::uint32_t timestamp_ms, std::uint32_t frame_count) {
  const std::size_t length =
      ring_record_length(record, path_record_frames(record, argument.path_length), frame_count);
  write_ring_call_head(record, kPathRecord, length, call, context_mask, timestamp_ms, frame_count);
  store_ring_field(record, offsetof(PathFields, name),
                   std::uint64_t{reinterpret_cast<std::uintptr_t>(call.name)});
  store_ring_field(record, offsetof(PathFields, value_name),
                   std::uint64_t{reinterpret_cast<std::uintptr_t>(argument.value_name)});
  store_ring_field(record, offsetof(PathFields, size),
                   call.size > UINT32_MAX ? UINT32_MAX : static_cast<std::uint32_t>(call.size));
  store_ring_field(record, offsetof(PathFields, value), argument.value);
  store_ring_field(record, offsetof(PathFields, path_length),
                   static_cast<std::uint32_t>(argument.path_length));
  CallPackets::copy_text(record + kPathFixed, argument.path, argument.path_length);
  return length;
}

inline bool is_path_record(const char* record) {
  return ring_record_type(record) == kPathRecord;
}

// Drain side: writes the CALL, ARGS and BTRC packets of the record at `record` into `out` (the
// bytes CallPackets writes for the call with arguments {"path", path} and {value name, hex});
// returns their length, 0 when they need more than `room` bytes.
std::size_t expand_path_record(const char* record, char* out, std::size_t room);

}  // namespace rtrace::tracer
