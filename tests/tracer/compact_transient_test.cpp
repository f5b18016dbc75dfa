// The compact writer's direct encoding of a transient record (transient_record_calls, compact_call)
// against the path it replaces: the record expanded into its four packets (expand_transient) and
// those transcoded (compact_transcode). The compact bytes must be the same, byte for byte.
//
// This test is its own program: it captures the compact bytes by providing the output the
// transcoder writes into (output_reserve, output_commit), in place of the trace's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "allocation_call.h"
#include "tracer/compact_transcoder.h"
#include "tracer/transient_record.h"

namespace rtrace::tracer {

namespace {
std::string g_written;
char g_room[1 << 16];
}  // namespace

char* output_reserve(std::size_t bytes) {
  return bytes <= sizeof g_room ? g_room : nullptr;
}

void output_commit(std::size_t bytes) {
  g_written.append(g_room, bytes);
}

namespace {

struct Step {
  const char* name;
  std::uint64_t size;
  std::uint64_t id;
  std::uint32_t context;
  std::uint32_t timestamp;
  std::vector<std::uintptr_t> frames;
  bool release_frames;
};

// Writes the records of `steps` one after the other into `ring` as a thread's ring holds them
// (their frames shared with the record before, as SharedFrames::keep leaves them); returns where
// each starts.
std::vector<const char*> write_records(const std::vector<Step>& steps, char* ring) {
  std::vector<const char*> records;
  SharedFrames producer;
  std::size_t offset = 0;
  for (const Step& step : steps) {
    const RtraceCall call = allocation_call(step.name, step.size, step.id);
    const auto count = static_cast<std::uint32_t>(step.frames.size());
    char* record = ring + offset;
    std::uint32_t kept = 0;
    if (count <= SharedFrames::kMaxShared) {
      std::copy(step.frames.begin(), step.frames.end(), producer.walked);
      kept = producer.keep(producer.walked, count, transient_frames(record));
    } else {
      std::copy(step.frames.begin(), step.frames.end(), transient_frames(record));
      kept = producer.keep_all(count);
    }
    const std::size_t length = write_transient(record, call, step.context, step.timestamp, count,
                                               kept, step.release_frames ? count : 0);
    records.push_back(record);
    offset = (offset + length + 3) / 4 * 4;  // the next record where the ring would put it
  }
  return records;
}

// The compact bytes of `records` through their packets.
std::string through_packets(const std::vector<const char*>& records) {
  static char packets[1 << 16];
  compact_restart();
  g_written.clear();
  SharedFrames consumer;
  for (const char* record : records) {
    const std::size_t length = expand_transient(record, consumer, packets, sizeof packets);
    compact_transcode(packets, length);
  }
  return g_written;
}

// The same, encoded straight from the records.
std::string direct(const std::vector<const char*>& records) {
  compact_restart();
  g_written.clear();
  SharedFrames consumer;
  for (const char* record : records) {
    compact::CallFields allocation;
    compact::CallFields release;
    if (transient_record_calls(record, consumer, allocation, release)) {
      compact_call(allocation);
      compact_call(release);
    }
  }
  return g_written;
}

TEST(CompactTransient, TheSameBytesAsTheTranscodedPackets) {
  alignas(8) static char ring[1 << 16];
  const std::vector<std::uintptr_t> deep(SharedFrames::kMaxShared + 3, 0x405000);
  const std::vector<Step> steps = {
      {"memcpy", 100, 0xabc0, 0, 7, {0x401000, 0x402000, 0x403000}, false},
      {"memset", 100, 0xabc0, 0, 7, {0x401010, 0x402000, 0x403000}, false},
      {"memcpy", 16, 0xabd0, 1, 8, {0x401000, 0x402000, 0x403000}, true},
      {"memset", 16, 0xabd0, 1, 8, {0x401010, 0x402000, 0x403000}, true},
      {"memset", 16, 0xabd0, 1, 8, {0x401010, 0x402000, 0x403000}, true},  // the same stack
      {"strcpy", std::uint64_t{1} << 33, 0x7fff0000, 3, 70000, {0x401020}, false},  // size capped
      {"__wmemcpy_chk", 0, 0x10, 0, 70000, {}, true},                               // no frames
      {"memmove", 12, 0x20, 0, 70001, deep, true},  // too deep to share
      {"memmove", 12, 0x20, 0, 70001, deep, false},
      {"memcpy", 5, 0xabc0, 0, 70002, {0x401000, 0x402000, 0x403000}, false},
      {"", 5, 0xabc0, 0, 70002, {0x401000, 0x402000}, true},  // an empty name
  };
  const std::vector<const char*> records = write_records(steps, ring);
  const std::string expected = through_packets(records);
  ASSERT_GT(expected.size(), steps.size());
  EXPECT_EQ(direct(records), expected);
  // Encoded again from the start of a new trace: the same again (the tables start empty).
  EXPECT_EQ(direct(records), expected);
}

// A record that cannot have been written so (more frames kept than it has) is dropped by both,
// and the records after it come out alike.
TEST(CompactTransient, ARecordNotWrittenSoIsDroppedAsItsExpansionIs) {
  alignas(8) static char ring[4096];
  const std::vector<Step> steps = {
      {"memcpy", 100, 0xabc0, 0, 7, {0x401000, 0x402000}, false},
      {"memset", 100, 0xabc0, 0, 7, {0x401010, 0x402000}, false},
  };
  std::vector<const char*> records = write_records(steps, ring);
  alignas(8) static char broken[256];
  const RtraceCall call = allocation_call("memcpy", 1, 2);
  write_transient(broken, call, 0, 0, 1, 2, 0);  // keeps 2 of 1
  records.insert(records.begin() + 1, broken);
  const std::string expected = through_packets(records);
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(direct(records), expected);
  EXPECT_EQ(direct({records[0], records[2]}), expected);
}

}  // namespace
}  // namespace rtrace::tracer
