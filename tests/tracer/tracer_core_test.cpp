// The tracer's parts that need no traced process (rtrace_tracer_core): the per-thread event ring,
// the packet encoder (checked by decoding what it writes with the post-processor's reader), the
// options parser, the environment editing and the symbol lookup without the loader.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "protocol/compact_encoder.h"
#include "support/test_paths.h"
#include "trace_decoder.h"
#include "tracer/core/environment.h"
#include "tracer/core/event_ring.h"
#include "tracer/core/loaded_symbol.h"
#include "tracer/core/options.h"
#include "tracer/core/proc_self.h"
#include "tracer/output/call_packets.h"
#include "tracer/output/compact_tables.h"
#include "tracer/output/packet_encoder.h"

namespace rtrace::tracer {
namespace {

// Drains `ring` as the merger does: every published record, in order, as (ticket, payload).
std::vector<std::pair<std::uint64_t, std::string>> consume(EventRing& ring,
                                                           std::uint64_t& payload_position) {
  std::vector<std::pair<std::uint64_t, std::string>> records;
  for (std::uint64_t i = ring.tail.load(); i < ring.head.load(); ++i) {
    const EventRing::Entry& entry = ring.entry(i);
    payload_position += entry.skip;
    records.emplace_back(entry.seq, std::string(ring.payload(payload_position), entry.length));
    payload_position += entry.length;
  }
  ring.tail.store(ring.head.load());
  ring.payload_tail.store(payload_position);
  return records;
}

TEST(EventRing, RecordsComeOutInOrderAcrossTheWrap) {
  EventRing ring;
  ASSERT_TRUE(ring.create(4096, 64));
  std::uint64_t payload_position = 0;
  std::uint64_t ticket = 0;
  for (int round = 0; round < 10; ++round) {
    std::vector<std::pair<std::uint64_t, std::string>> written;
    for (int i = 0; i < 3; ++i) {
      const std::string text(700 + round * 10 + i, static_cast<char>('a' + i));
      char* space = ring.try_reserve(1000);
      ASSERT_NE(space, nullptr) << round;
      text.copy(space, text.size());
      ring.publish(++ticket, text.size());
      written.emplace_back(ticket, text);
    }
    EXPECT_EQ(consume(ring, payload_position), written) << round;
  }
}

// Positions wrap with a mask: sizes that are not powers of two are refused, not mis-wrapped.
TEST(EventRing, SizesMustBePowersOfTwo) {
  EventRing ring;
  EXPECT_FALSE(ring.create(4000, 64));
  EXPECT_FALSE(ring.create(4096, 48));
  EXPECT_FALSE(ring.create(0, 64));
  EXPECT_TRUE(ring.create(4096, 64));
}

TEST(EventRing, FullRingRefusesUntilDrained) {
  EventRing ring;
  ASSERT_TRUE(ring.create(4096, 4));
  EXPECT_EQ(ring.try_reserve(2049), nullptr);  // more than half: never
  for (std::uint64_t i = 1; i <= 4; ++i) {
    ASSERT_NE(ring.try_reserve(16), nullptr);
    ring.publish(i, 16);
  }
  EXPECT_EQ(ring.try_reserve(16), nullptr);  // the index is full
  std::uint64_t payload_position = 0;
  EXPECT_EQ(consume(ring, payload_position).size(), 4U);
  EXPECT_NE(ring.try_reserve(16), nullptr);
}

// The producer reads the consumer's positions only when its copies of them say the ring is
// filling; the answer must still follow the consumer, both ways.
TEST(EventRing, FillingFollowsTheConsumer) {
  EventRing ring;
  ASSERT_TRUE(ring.create(4096, 64));
  std::uint64_t ticket = 0;
  const auto publish_bytes = [&](std::size_t bytes) {
    ASSERT_NE(ring.try_reserve(bytes), nullptr);
    ring.publish(++ticket, bytes);
  };
  publish_bytes(1000);
  EXPECT_FALSE(ring.filling());  // 1000 of 4096 bytes, 1 of 64 entries
  publish_bytes(100);
  EXPECT_TRUE(ring.filling());  // 1100 > 4096 / 4
  std::uint64_t payload_position = 0;
  EXPECT_EQ(consume(ring, payload_position).size(), 2U);
  EXPECT_FALSE(ring.filling());
  for (int i = 0; i < 17; ++i) {
    publish_bytes(8);
  }
  EXPECT_TRUE(ring.filling());  // 17 > 64 / 4 entries
  EXPECT_EQ(consume(ring, payload_position).size(), 17U);
  EXPECT_FALSE(ring.filling());
}

// What each side writes on every record sits on cache lines of its own (a line written by both
// moves between the cores on every record).
TEST(EventRing, EachSideWritesItsOwnCacheLines) {
  EventRing ring;
  const auto line = [](const void* field) { return reinterpret_cast<std::uintptr_t>(field) / 64; };
  EXPECT_NE(line(&ring.head), line(&ring.tail));
  EXPECT_EQ(line(&ring.tail), line(&ring.payload_tail));
  EXPECT_NE(line(&ring.head), line(&ring.owner_tid));
  EXPECT_NE(line(&ring.tail), line(&ring.owner_tid));
  EXPECT_NE(line(&ring.payload_tail), line(&ring.producer_frames));
  EXPECT_NE(line(&ring.head), line(&ring.producer_frames));
}

// What the encoder writes is a trace the post-processor reads, byte for byte re-encodable.
TEST(PacketEncoder, WritesWhatTheReaderReads) {
  char buffer[4096];
  PacketEncoder encoder(buffer, sizeof buffer);
  encoder.handshake();
  encoder.begin_packet(sprtrace::PacketType::ProcessInfo);
  encoder.u32(4242);
  encoder.u32(1700000000);
  encoder.u32(0);
  encoder.u32(7);
  encoder.string("/usr/bin/example");
  encoder.end_packet();
  ASSERT_FALSE(encoder.overflowed());
  const test::ScratchDir scratch;
  const std::string path = (scratch / "header.rtrace").string();
  std::ofstream(path, std::ios::binary).write(buffer, static_cast<std::streamsize>(encoder.size()));
  const test::TraceDecoder trace = test::decode_file(path);
  EXPECT_TRUE(trace.complete()) << trace.error();
  EXPECT_EQ(trace.pid, 4242U);
  EXPECT_EQ(trace.depth, 7U);
  EXPECT_EQ(trace.process, "/usr/bin/example");
}

TEST(PacketEncoder, APacketThatDoesNotFitIsDropped) {
  char buffer[16];
  PacketEncoder encoder(buffer, sizeof buffer);
  encoder.begin_packet(sprtrace::PacketType::ProcessInfo);
  encoder.string("a name longer than the buffer");
  EXPECT_TRUE(encoder.overflowed());
  EXPECT_EQ(encoder.remaining(), 0U);
}

// The packets of a call written field by field with PacketEncoder, which checks every field:
// what CallPackets, the traced calls' unchecked writer, must write byte for byte.
std::string reference_call_packets(const RtraceCall& call, std::uint32_t context,
                                   std::uint32_t timestamp, const std::uintptr_t* frames,
                                   std::uint32_t frame_count) {
  std::vector<char> buffer(1 << 17);
  PacketEncoder encoder(buffer.data(), buffer.size());
  encoder.begin_packet(sprtrace::PacketType::FunctionCall);
  encoder.u32(call.resource_type);
  encoder.u32(context);
  encoder.u32(timestamp);
  encoder.u32(call.kind);
  encoder.string(call.name);
  const bool wide = sprtrace::needs_call_size_packet(call.size);
  encoder.u32(wide ? sprtrace::kCappedCallSize : static_cast<std::uint32_t>(call.size));
  encoder.pointer(call.id);
  encoder.end_packet();
  if (wide) {  // the real size, which the CALL's field cannot hold
    encoder.begin_packet(sprtrace::PacketType::CallSize);
    encoder.u64(call.size);
    encoder.end_packet();
  }
  if (call.arg_count > 0) {
    encoder.begin_packet(sprtrace::PacketType::FunctionArgs);
    encoder.u32(call.arg_count);
    for (std::uint32_t i = 0; i < call.arg_count; ++i) {
      encoder.string(call.args[i].name);
      encoder.string(call.args[i].value);
    }
    encoder.end_packet();
  }
  encoder.begin_packet(sprtrace::PacketType::Backtrace);
  encoder.u32(frame_count);
  encoder.pointers(frames, frame_count);
  encoder.end_packet();
  EXPECT_FALSE(encoder.overflowed());
  return {buffer.data(), encoder.size()};
}

std::string written_call_packets(const RtraceCall& call, std::uint32_t context,
                                 std::uint32_t timestamp, const std::uintptr_t* frames,
                                 std::uint32_t frame_count) {
  const CallPackets packets(call, frame_count);
  // Filled with 0xAA so that a byte the writer leaves unwritten shows.
  std::string out(packets.size(), '\xAA');
  packets.write(out.data(), context, timestamp, frames);
  return out;
}

TEST(CallPackets, WritesWhatThePacketEncoderWrites) {
  const std::uintptr_t frames[] = {0x401000, 0x7f0000001234, 0xffffffffffffffff};
  const std::string texts[] = {
      "", "a", "ab", "abc", "abcd", "abcde", "open64", "/dev/null", std::string(300, 'p')};
  for (const std::string& name : texts) {
    for (std::uint32_t frame_count = 0; frame_count <= 3; frame_count += 3) {
      const RtraceCall call{
          3, sprtrace::kCallAlloc, name.c_str(), 0x1'0000'0001, 0xdeadbeef, nullptr, 0};
      EXPECT_EQ(written_call_packets(call, 5, 1234, frames, frame_count),
                reference_call_packets(call, 5, 1234, frames, frame_count))
          << "name of " << name.size() << " bytes, " << frame_count << " frames";
    }
  }
  // Arguments of every length, more of them than the writer keeps the lengths of, and a null.
  std::vector<RtraceArg> args;
  for (const std::string& text : texts) {
    args.push_back({text.c_str(), texts[(&text - texts + 3) % std::size(texts)].c_str()});
  }
  args.push_back({"mode", nullptr});
  for (std::uint32_t count = 1; count <= args.size(); ++count) {
    const RtraceCall call{1, sprtrace::kCallFree, "close", 0, 7, args.data(), count};
    EXPECT_EQ(written_call_packets(call, 0, 99, frames, 2),
              reference_call_packets(call, 0, 99, frames, 2))
        << count << " arguments";
  }
}

// A text longer than a string field holds is cut to the longest the field holds, as
// PacketEncoder cuts it.
TEST(CallPackets, CutsTextsToWhatAStringFieldHolds) {
  const std::string name(CallPackets::kMaxText + 100, 'n');
  const RtraceCall call{1, sprtrace::kCallAlloc, name.c_str(), 8, 16, nullptr, 0};
  const std::string written = written_call_packets(call, 0, 0, nullptr, 0);
  EXPECT_TRUE(written == reference_call_packets(call, 0, 0, nullptr, 0));  // 64 KiB: not printed
  std::uint16_t stored = 0;
  std::memcpy(&stored, written.data() + 8 + 16, sizeof stored);
  EXPECT_EQ(stored, sprtrace::padded_string_length(CallPackets::kMaxText));
}

// The compact writer's function ids: the names looked up last answer without the table, and
// names of one length taken in turn (memcpy and memset on every transfer) must each keep their
// own id, as must a third one of that length pushing the others out, and names of other lengths.
TEST(CompactTables, NamesOfOneLengthInTurnKeepTheirOwnIds) {
  CompactTables tables;
  tables.clear(compact::Table::Functions);
  const std::vector<std::string> names = {"memcpy", "memset",  "strcpy",
                                          "free",   "memmove", "a_name_longer_than_sixteen_bytes",
                                          "malloc"};
  std::vector<std::uint64_t> ids;
  for (const std::string& name : names) {
    bool fresh = false;
    ids.push_back(tables.function_id(name.data(), name.size(), fresh));
    EXPECT_TRUE(fresh) << name;
    EXPECT_EQ(ids.back(), ids.size()) << name;  // numbered in order of first appearance
  }
  // Every order of two and three names of length 6, and the others in between.
  const std::vector<std::size_t> order = {0, 1, 0, 1, 1, 0, 2, 0, 1, 2, 2, 1, 0, 6, 0,
                                          6, 3, 4, 0, 5, 1, 5, 6, 2, 6, 1, 0, 0, 3, 1};
  for (const std::size_t index : order) {
    bool fresh = false;
    EXPECT_EQ(tables.function_id(names[index].data(), names[index].size(), fresh), ids[index])
        << names[index];
    EXPECT_FALSE(fresh) << names[index];
  }
  // A new table: the same names are new again, numbered from 1 in the new order.
  tables.clear(compact::Table::Functions);
  bool fresh = false;
  EXPECT_EQ(tables.function_id("memset", 6, fresh), 1U);
  EXPECT_TRUE(fresh);
  fresh = false;
  EXPECT_EQ(tables.function_id("memcpy", 6, fresh), 2U);
  EXPECT_TRUE(fresh);
  fresh = false;
  EXPECT_EQ(tables.function_id("memset", 6, fresh), 1U);
  EXPECT_FALSE(fresh);
}

// The compact writer's stack ids: the stacks found last answer without the table, and must not
// answer for a stack that differs from them in its last frame only, or is a prefix of one.
TEST(CompactTables, StacksInTurnKeepTheirOwnIds) {
  CompactTables tables;
  tables.clear(compact::Table::Stacks);
  const std::vector<std::vector<std::uint64_t>> stacks = {
      {0x1000, 0x2000, 0x3000, 0x4000},         {0x1001, 0x2000, 0x3000, 0x4000},
      {0x1000, 0x2000, 0x3000, 0x4001},         {0x1000, 0x2000, 0x3000},
      {0x1000, 0x2000, 0x3000, 0x4000, 0x5000}, {}};
  std::vector<std::uint64_t> ids;
  for (const auto& stack : stacks) {
    bool fresh = false;
    ids.push_back(tables.stack_id(stack.data(), static_cast<std::uint32_t>(stack.size()), fresh));
    EXPECT_TRUE(fresh);
    EXPECT_EQ(ids.back(), ids.size());  // numbered in order of first appearance
  }
  const std::vector<std::size_t> order = {0, 1, 0, 1, 1, 2, 0, 2, 3, 0, 3, 4,
                                          0, 4, 5, 0, 5, 2, 1, 0, 0, 3, 3, 4};
  for (const std::size_t index : order) {
    bool fresh = false;
    const auto& stack = stacks[index];
    EXPECT_EQ(tables.stack_id(stack.data(), static_cast<std::uint32_t>(stack.size()), fresh),
              ids[index])
        << index;
    EXPECT_FALSE(fresh) << index;
  }
  // A new table: a stack remembered from the old one is new again.
  tables.clear(compact::Table::Stacks);
  bool fresh = false;
  EXPECT_EQ(tables.stack_id(stacks[1].data(), 4, fresh), 1U);
  EXPECT_TRUE(fresh);
  fresh = false;
  EXPECT_EQ(tables.stack_id(stacks[0].data(), 4, fresh), 2U);
  EXPECT_TRUE(fresh);
  fresh = false;
  EXPECT_EQ(tables.stack_id(stacks[1].data(), 4, fresh), 1U);
  EXPECT_FALSE(fresh);
}

// The compact writer's outer frames (compact_encoder.h): the stack frames by id, and per key
// the first stack that had it; a new table forgets both.
TEST(CompactTables, OuterFramesKeepTheFirstStackThatHadThem) {
  CompactTables tables;
  tables.clear(compact::Table::Stacks);
  const std::vector<std::uint64_t> first = {0x10, 0x20, 0x30};
  const std::vector<std::uint64_t> second = {0x11, 0x20};
  bool fresh = false;
  ASSERT_EQ(tables.stack_id(first.data(), 3, fresh), 1U);
  ASSERT_EQ(tables.stack_id(second.data(), 2, fresh), 2U);
  std::uint32_t count = 0;
  const std::uint64_t* frames = tables.stack_frames(2, count);
  ASSERT_NE(frames, nullptr);
  EXPECT_EQ(std::vector<std::uint64_t>(frames, frames + count), second);
  EXPECT_EQ(tables.stack_frames(3, count), nullptr);
  EXPECT_EQ(tables.stack_frames(0, count), nullptr);
  EXPECT_EQ(tables.stack_with_outer(42), 0U);
  tables.add_outer(42, 1);
  tables.add_outer(42, 2);  // already had
  tables.add_outer(43, 2);
  EXPECT_EQ(tables.stack_with_outer(42), 1U);
  EXPECT_EQ(tables.stack_with_outer(43), 2U);
  tables.clear(compact::Table::Stacks);
  EXPECT_EQ(tables.stack_with_outer(42), 0U);
  EXPECT_EQ(tables.stack_frames(1, count), nullptr);
}

// The tracer's encoder over its own tables writes each new stack as the frames it adds to the
// outer frames of the earlier stack sharing the most (the first to have them): the same STACK
// payloads as rtrace's writer (compact_format_test, WriterSharesTheOuterFramesOfTheStacks...).
TEST(CompactTables, TheEncoderSharesTheOuterFramesOfTheStacksWrittenBefore) {
  struct Chunks {  // every record is one commit
    std::vector<std::string> records;
    std::string room;
    char* reserve(std::size_t bytes) {
      room.assign(bytes, '\0');
      return room.data();
    }
    void commit(std::size_t bytes) { records.push_back(room.substr(0, bytes)); }
  };
  Chunks out;
  CompactTables tables;
  tables.clear_all();
  auto encoder = std::make_unique<compact::CompactEncoder<Chunks, CompactTables>>(out, tables);
  const std::vector<std::vector<std::uint64_t>> stacks = {{0x10, 0x20, 0x30, 0x40},
                                                          {0x11, 0x20, 0x30, 0x40},
                                                          {0x12, 0x21, 0x30, 0x40},
                                                          {0x30, 0x40},
                                                          {0x13, 0x99}};
  for (const auto& stack : stacks) {
    encoder->call({.kind = 2,
                   .function = {"malloc", 6},
                   .resource_id = 0x1000,
                   .size = 8,
                   .frames = stack.data(),
                   .frame_count = static_cast<std::uint32_t>(stack.size())});
  }
  std::vector<std::string> written;
  for (const std::string& record : out.records) {
    if (record[0] == static_cast<char>(compact::Tag::Stack)) {
      written.push_back(record.substr(2));  // the tag, a one-byte length
    }
  }
  const auto v = [](std::uint64_t value) {
    std::string bytes(compact::varint_size(value), '\0');
    compact::put_varint(bytes.data(), value);
    return bytes;
  };
  const auto z = [&](std::int64_t delta) { return v(compact::zigzag(delta)); };
  const std::vector<std::string> expected = {
      v(4) + v(0) + z(0x10) + z(0x10) + z(0x10) + z(0x10), v(4) + v(3) + v(1) + z(0x11 - 0x40),
      v(4) + v(2) + v(2) + z(0x12 - 0x11) + z(0x21 - 0x12), v(2) + v(2) + v(3),
      v(2) + v(0) + z(0x13 - 0x21) + z(0x99 - 0x13)};
  EXPECT_EQ(written, expected);
}

// The resource table probes from each id's home: ids that come in a dense run must get homes of
// their own, or the probes grow with the run (the writer then spends its time there). Runs of
// 200,000: ids counting up from 1 and from 3 (descriptors), blocks 8 and 16 bytes apart, and
// 16-byte blocks of 16 glibc arenas (64 MiB apart, at the same offsets).
TEST(CompactTables, DenseRunsOfResourceIdsGetHomesOfTheirOwn) {
  constexpr std::uint64_t kRun = 200000;
  const auto distinct_homes = [](auto id_of) {
    std::vector<std::size_t> homes;
    for (std::uint64_t i = 0; i < kRun; ++i) {
      homes.push_back(compact_resource_home(id_of(i)));
    }
    std::ranges::sort(homes);
    return static_cast<std::uint64_t>(std::unique(homes.begin(), homes.end()) - homes.begin());
  };
  EXPECT_EQ(distinct_homes([](std::uint64_t i) { return 1 + i; }), kRun);
  EXPECT_EQ(distinct_homes([](std::uint64_t i) { return 3 + i; }), kRun);
  EXPECT_EQ(distinct_homes([](std::uint64_t i) { return 0x7f3a00000000 + 8 * i; }), kRun);
  EXPECT_EQ(distinct_homes([](std::uint64_t i) { return 0x55d000001000 + 16 * i; }), kRun);
  const auto arena_block = [](std::uint64_t i) {
    return 0x7f0000000000 + (i % 16) * (std::uint64_t{64} << 20) + 0x8c0 + 16 * (i / 16);
  };
  EXPECT_GT(distinct_homes(arena_block), kRun * 99 / 100);
  // Neighbouring blocks stay neighbours (the lookups of a churn stay in a few cache lines).
  EXPECT_EQ(compact_resource_home(0x55d000001010), compact_resource_home(0x55d000001000) + 1);
}

TEST(TracerOptions, BadValuesAreIgnoredAndTheDepthIsBounded) {
  const TracerOptions options =
      parse_options("depth=9999,start=x,signal=99,unknown=1,timestamps=0,,sizes=5;x;7");
  EXPECT_EQ(options.depth, TracerOptions::kMaxDepth);
  EXPECT_FALSE(options.start);
  EXPECT_EQ(options.toggle_signal, 10);
  EXPECT_FALSE(options.timestamps);
  ASSERT_EQ(options.size_count, 2U);
  EXPECT_EQ(options.sizes[0], 5U);
  EXPECT_EQ(options.sizes[1], 7U);
  EXPECT_EQ(parse_options(nullptr).depth, 10U);
}

// Without depth=, the depth is the format's default: 64 for the compact format, the original's
// 10 for the sp-rtrace protocol; wherever the key comes in the list, it wins.
TEST(TracerOptions, DepthDefaultsToTheFormats) {
  EXPECT_EQ(parse_options("start=1").depth, 10U);
  EXPECT_EQ(parse_options("start=1,compact=1").depth, 64U);
  EXPECT_EQ(parse_options("compact=0").depth, 10U);
  EXPECT_EQ(parse_options("depth=5,compact=1").depth, 5U);
  EXPECT_EQ(parse_options("compact=1,depth=0").depth, 0U);
  EXPECT_EQ(parse_options("depth=x,compact=1").depth, 64U);  // malformed: as if not given
}

TEST(TracerOptions, AuditPatternsAreKeptWholeOrNotAtAll) {
  EXPECT_STREQ(parse_options("depth=3,audit=g_*:gtk_widget_show,start=1").audit_patterns,
               "g_*:gtk_widget_show");
  EXPECT_STREQ(parse_options("start=1").audit_patterns, "");
  const std::string too_long = "audit=" + std::string(TracerOptions::kMaxAuditPatterns, 'x');
  EXPECT_STREQ(parse_options(too_long.c_str()).audit_patterns, "");
}

// The recorder's unclaimed RTRACE_ROOT_PID is claimed in place by the first traced process;
// another pid there means a descendant.
TEST(Environment, RootPidIsClaimedInPlace) {
  ASSERT_EQ(::setenv(kRootPidVariable, std::string(kRootPidWidth, '0').c_str(), 1), 0);
  char* value = std::getenv(kRootPidVariable);
  EXPECT_TRUE(claim_root_process(1234));
  EXPECT_EQ(std::getenv(kRootPidVariable), value);  // the same string, edited
  EXPECT_EQ(std::string(value), std::string(kRootPidWidth - 4, '0') + "1234");
  EXPECT_TRUE(claim_root_process(1234));
  EXPECT_FALSE(claim_root_process(4321));
  EXPECT_STREQ(environment_value(kRootPidVariable), value);
  EXPECT_EQ(environment_value("RTRACE_NO_SUCH_VARIABLE"), nullptr);
}

TEST(Environment, MissingRootPidIsAdded) {
  ASSERT_EQ(::unsetenv(kRootPidVariable), 0);
  EXPECT_TRUE(claim_root_process(777));
  EXPECT_STREQ(environment_value(kRootPidVariable), "777");
  EXPECT_STREQ(std::getenv(kRootPidVariable), "777");
  EXPECT_FALSE(claim_root_process(778));
}

// ---- /proc/self (proc_self.h) ----------------------------------------------------------------

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(ProcSelf, KeepsWholeArgumentsThatFit) {
  const test::ScratchDir dir;
  const std::string path = (dir / "cmdline").string();
  write_file(path, std::string("./prog\0two words\0x\0", 19));
  char buffer[32];
  bool cut = true;
  EXPECT_EQ(read_arguments(path.c_str(), buffer, sizeof buffer, cut), 19U);
  EXPECT_FALSE(cut);
  EXPECT_EQ(std::string(buffer, 19), std::string("./prog\0two words\0x\0", 19));
  // Room for the first argument and part of the second: only the first is kept.
  EXPECT_EQ(read_arguments(path.c_str(), buffer, 10, cut), 7U);
  EXPECT_TRUE(cut);
  EXPECT_EQ(read_arguments((dir / "missing").c_str(), buffer, sizeof buffer, cut), 0U);
}

TEST(ProcSelf, ReadsPeakAndCurrentResidentSetSize) {
  const test::ScratchDir dir;
  const std::string path = (dir / "status").string();
  // A long line before the ones read (Groups: can be kilobytes long).
  write_file(path, "Name:\tprog\nGroups:\t" + std::string(5000, '7') +
                       "\nVmPeak:\t   99999 kB\nVmHWM:\t    8192 kB\nVmRSS:\t     640 kB\n"
                       "Threads:\t1\n");
  const ResidentSet resident = read_resident_set(path.c_str());
  EXPECT_EQ(resident.peak_bytes, 8192U * 1024);
  EXPECT_EQ(resident.current_bytes, 640U * 1024);
  // This process's own: the peak is never below the current size.
  const ResidentSet self = read_resident_set("/proc/self/status");
  EXPECT_GT(self.current_bytes, 0U);
  EXPECT_GE(self.peak_bytes, self.current_bytes);
}

// What the tracer finds in a loaded library's own symbol table is what dlsym on the library's
// handle finds: IFUNCs resolved (memcpy, memset), the default of several versions (realpath has
// two, memcpy too), plain functions; nothing for a name or a library that is not there.
TEST(LoadedSymbol, FindsWhatDlsymFindsInTheLibrary) {
  void* libc = ::dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY);
  ASSERT_NE(libc, nullptr);
  for (const char* name : {"memcpy", "memset", "realpath", "getpid", "malloc", "dl_iterate_phdr"}) {
    void* expected = ::dlsym(libc, name);
    ASSERT_NE(expected, nullptr) << name;
    EXPECT_EQ(find_symbol_in("libc.so.6", name), expected) << name;
  }
  EXPECT_EQ(find_symbol_in("libc.so.6", "rtrace_no_such_function"), nullptr);
  EXPECT_EQ(find_symbol_in("libc.so", "memcpy"), nullptr);  // the whole file name, not a prefix
  EXPECT_EQ(find_symbol_in("librtrace-no-such-library.so", "memcpy"), nullptr);
  ::dlclose(libc);
}

}  // namespace
}  // namespace rtrace::tracer
