// The compact writer's direct encoding of a transient record (take_transient_allocation,
// compact_transient: one transient CALL) against the path it replaces: the record expanded into
// its four packets (expand_transient) and those transcoded (compact_transcode) into two CALLs.
// Read back by the post-processor's reader, both must give the same calls; the direct one in
// fewer bytes.
//
// This test is its own program: it captures the compact bytes by providing the output the
// transcoder writes into (output_reserve, output_commit), in place of the trace's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "allocation_call.h"
#include "support/test_paths.h"
#include "trace_decoder.h"
#include "tracer/output/compact_transcoder.h"
#include "tracer/output/packet_encoder.h"
#include "tracer/output/transient_record.h"

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

// The same, encoded straight from the records, as the drain does (record_merge.cpp).
std::string direct(const std::vector<const char*>& records) {
  compact_restart();
  g_written.clear();
  SharedFrames consumer;
  for (const char* record : records) {
    take_transient_allocation(record, consumer, compact_transient);
  }
  return g_written;
}

// The calls the compact records `records` hold, read by the post-processor's reader after the
// file header and TRACE record the tracer writes for its handshake; one line per call.
std::vector<std::string> read_calls(const std::string& records) {
  compact_restart();
  g_written.clear();
  char handshake[64];
  PacketEncoder encoder(handshake, sizeof handshake);
  encoder.handshake();
  compact_transcode(handshake, encoder.size());
  const test::ScratchDir scratch;
  const std::string path = (scratch / "trace.rtrace").string();
  std::ofstream(path, std::ios::binary) << g_written << records;
  const test::TraceDecoder trace = test::decode_file(path);
  std::vector<std::string> calls;
  for (const test::DecodedCall& call : trace.calls) {
    std::string line =
        call.name + " kind=" + std::to_string(call.kind) + " ctx=" + std::to_string(call.context) +
        " ts=" + std::to_string(call.timestamp) + " size=" + std::to_string(call.size) +
        " id=" + std::to_string(call.id) + " bt=";
    for (const std::uint64_t frame : call.frames) {
      line += std::to_string(frame) + ",";
    }
    calls.push_back(line);
  }
  return calls;
}

// What the direct encoding must be: the calls of the transcoded packets, in fewer bytes.
void expect_same_calls_in_fewer_bytes(const std::vector<const char*>& records,
                                      const std::string& through_packets_bytes) {
  const std::string bytes = direct(records);
  EXPECT_LT(bytes.size(), through_packets_bytes.size());
  const std::vector<std::string> expected = read_calls(through_packets_bytes);
  EXPECT_EQ(expected.size() % 2, 0U);
  EXPECT_EQ(read_calls(bytes), expected);
}

TEST(CompactTransient, TheSameCallsAsTheTranscodedPacketsInFewerBytes) {
  alignas(8) static char ring[1 << 16];
  const std::vector<std::uintptr_t> deep(SharedFrames::kMaxShared + 3, 0x405000);
  const std::vector<Step> steps = {
      {"memcpy", 100, 0xabc0, 0, 7, {0x401000, 0x402000, 0x403000}, false},
      {"memset", 100, 0xabc0, 0, 7, {0x401010, 0x402000, 0x403000}, false},
      {"memcpy", 16, 0xabd0, 1, 8, {0x401000, 0x402000, 0x403000}, true},
      {"memset", 16, 0xabd0, 1, 8, {0x401010, 0x402000, 0x403000}, true},
      {"memset", 16, 0xabd0, 1, 8, {0x401010, 0x402000, 0x403000}, true},  // the same stack
      {"strcpy", std::uint64_t{1} << 33, 0x7fff0000, 3, 70000, {0x401020}, false},  // 8 GiB
      {"__wmemcpy_chk", 0, 0x10, 0, 70000, {}, true},                               // no frames
      {"memmove", 12, 0x20, 0, 70001, deep, true},  // too deep to share
      {"memmove", 12, 0x20, 0, 70001, deep, false},
      {"memcpy", 5, 0xabc0, 0, 70002, {0x401000, 0x402000, 0x403000}, false},
      {"", 5, 0xabc0, 0, 70002, {0x401000, 0x402000}, true},  // an empty name
  };
  const std::vector<const char*> records = write_records(steps, ring);
  const std::string expected = through_packets(records);
  ASSERT_GT(expected.size(), steps.size());
  ASSERT_EQ(read_calls(expected).size(), 2 * steps.size());
  // The 8 GiB allocation whole: its packets carry the size in an RSIZ packet.
  EXPECT_EQ(read_calls(expected)[10], "strcpy kind=2 ctx=3 ts=70000 size=8589934592 id=2147418112 "
                                      "bt=4198432,");
  expect_same_calls_in_fewer_bytes(records, expected);
  // Encoded again from the start of a new trace: the same again (the tables start empty).
  const std::string once = direct(records);
  EXPECT_EQ(direct(records), once);
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
  ASSERT_EQ(read_calls(expected).size(), 4U);
  expect_same_calls_in_fewer_bytes(records, expected);
  EXPECT_EQ(direct(records), direct({records[0], records[2]}));
}

}  // namespace
}  // namespace rtrace::tracer
