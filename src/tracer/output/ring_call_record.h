// What the tracer's internal call records (transient_record.h, path_record.h, release_record.h,
// allocation_record.h) share: records a traced thread writes into its ring instead of a call's
// packets, with names by address and the frames unwound straight into place, that the drain
// expands into the packets before anything is written (or, in the compact format, hands to the
// encoder as the calls those packets stand for: ring_call_fields). Every such record starts with
// the same head, then its own fields, then the frames at the next 8-byte boundary of memory (the
// ring's records are 4-byte aligned; walks store whole words). Native byte order, as every record
// in the ring. Never allocates.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>

#include "protocol/compact_encoder.h"
#include "protocol/sprtrace_packets.h"
#include "tracer/api/tracer_api.h"
#include "tracer/output/call_packets.h"

namespace rtrace::tracer {

// [type:4][payload length:4][resource:4][context:4][timestamp:4][frame count:4][id:8]
struct RingCallHead {
  std::uint32_t type;  // not a packet type of the protocol (those are upper-case)
  std::uint32_t payload;
  std::uint32_t resource;
  std::uint32_t context;
  std::uint32_t timestamp;
  std::uint32_t frame_count;
  std::uint64_t id;
};
static_assert(sizeof(RingCallHead) == 32);

// Stores `value` at `offset` in the record at `record` (4-byte aligned: an unaligned store).
template <typename T>
inline void store_ring_field(char* record, std::size_t offset, T value) {
  __builtin_memcpy(record + offset, &value, sizeof value);
}

// Writes the head of a record of `length` bytes for `call` at `record`, field by field, straight
// into the ring. Not a RingCallHead built on the stack and copied: its 16-byte loads of fields just
// stored by 4- and 8-byte stores cannot be forwarded from the store buffer, and those stalls were a
// quarter of a traced transfer's CPU time (perf annotate of rtrace_record_transient).
inline void write_ring_call_head(char* record, std::uint32_t type, std::size_t length,
                                 const RtraceCall& call, std::uint32_t context_mask,
                                 std::uint32_t timestamp_ms, std::uint32_t frame_count) {
  store_ring_field(record, offsetof(RingCallHead, type), type);
  store_ring_field(record, offsetof(RingCallHead, payload), static_cast<std::uint32_t>(length - 8));
  store_ring_field(record, offsetof(RingCallHead, resource), call.resource_type);
  store_ring_field(record, offsetof(RingCallHead, context), context_mask);
  store_ring_field(record, offsetof(RingCallHead, timestamp), timestamp_ms);
  store_ring_field(record, offsetof(RingCallHead, frame_count), frame_count);
  store_ring_field(record, offsetof(RingCallHead, id), call.id);
}

// The type of the record at `record` in a ring: a packet's, or one of the internal records'.
inline std::uint32_t ring_record_type(const char* record) {
  std::uint32_t type = 0;
  __builtin_memcpy(&type, record, sizeof type);
  return type;
}

// Room a record whose fields take `fixed_length` bytes needs in the ring with up to `depth`
// frames (the ring's records are 4-byte aligned: up to 4 bytes go to aligning the frames).
constexpr std::size_t ring_record_bound(std::size_t fixed_length, std::uint32_t depth) {
  return fixed_length + 4 + sizeof(std::uintptr_t) * std::size_t{depth};
}

// Where the frames go of a record whose fields and bytes take `fixed_length` bytes.
inline std::uintptr_t* ring_record_frames(char* record, std::size_t fixed_length) {
  char* const unaligned = record + fixed_length;
  const std::size_t padding = -reinterpret_cast<std::uintptr_t>(unaligned) & 7;
  return reinterpret_cast<std::uintptr_t*>(unaligned + padding);
}

// The length of the record at `record` whose `frame_count` frames start at `frames`.
inline std::size_t ring_record_length(const char* record, const std::uintptr_t* frames,
                                      std::uint32_t frame_count) {
  return static_cast<std::size_t>(reinterpret_cast<const char*>(frames + frame_count) - record);
}

// The name a record carries as its address (a string literal of the program's, which outlives
// the record).
inline const char* name_text(std::uint64_t name) {
  // NOLINTNEXTLINE(performance-no-int-to-ptr): the record keeps the literal's address as a u64.
  return reinterpret_cast<const char*>(static_cast<std::uintptr_t>(name));
}

// Drain side: writes the packets the head stands for, as CallPackets writes them for the call of
// `kind` (an allocation or a release) named at address `name`, of `size`, with `args`; returns
// their length, 0 when they need more than `room` bytes.
inline std::size_t write_head_packets(const RingCallHead& head, std::uint32_t kind,
                                      std::uint64_t name, std::uint64_t size, const RtraceArg* args,
                                      std::uint32_t arg_count, const std::uintptr_t* frames,
                                      char* out, std::size_t room) {
  const RtraceCall call{head.resource, kind, name_text(name), size, head.id, args, arg_count};
  const CallPackets packets(call, head.frame_count);
  if (packets.size() > room) {
    return 0;
  }
  packets.write(out, head.context, head.timestamp, frames);
  return packets.size();
}

// Drain side, the compact format: the fields of the call the head stands for (of `kind`, named at
// address `name`, of `size`, its head.frame_count frames at `frames`), as the compact transcoder
// reads them from the packets write_head_packets writes: the name cut as CallPackets does. The name
// and the frames stay where they are (the program's memory, the ring).
inline compact::CallFields ring_call_fields(const RingCallHead& head, std::uint32_t kind,
                                            std::uint64_t name, std::uint64_t size,
                                            const std::uintptr_t* frames) {
  const char* text = name_text(name);
  // 8-byte aligned in the ring, and a uintptr_t is a uint64_t where the compact format is written.
  static_assert(sizeof(std::uintptr_t) == sizeof(std::uint64_t));
  // Every field at once: assigned one by one after a default initialisation, the fields were
  // zeroed first (a `rep stos` per call).
  return compact::CallFields{
      .kind = static_cast<std::uint8_t>(kind),
      .function = {text != nullptr ? text : "", CallPackets::text_length(text)},
      .resource_type = head.resource,
      .context = head.context,
      .timestamp = head.timestamp,
      .resource_id = head.id,
      .size = size,
      .frames = reinterpret_cast<const std::uint64_t*>(frames),
      .frame_count = head.frame_count,
      .arguments = nullptr,
      .argument_count = 0};
}

}  // namespace rtrace::tracer
