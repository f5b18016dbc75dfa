// The packets the tracer encodes (call_packets.h, and in rtrace_tracer_core transient_release.h,
// transient_record.h, path_record.h, release_record.h and session_packets.h),
// checked by decoding them with the post-processor's binary reader (trace_decoder.h, which also
// re-encodes them and requires the same bytes).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "allocation_call.h"
#include "support/test_paths.h"
#include "trace_decoder.h"
#include "tracer/output/allocation_record.h"
#include "tracer/output/call_packets.h"
#include "tracer/output/packet_encoder.h"
#include "tracer/output/path_record.h"
#include "tracer/output/release_record.h"
#include "tracer/output/session_packets.h"
#include "tracer/output/transient_record.h"
#include "tracer/output/transient_release.h"

namespace rtrace::tracer {
namespace {

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// A trace file of a handshake, a PINF (pid 77, depth 4, from a cmdline file of three arguments)
// and then the bytes `encode` writes into `body` (through the encoder it gets, or directly),
// their length returned; it also gets the scratch directory.
template <typename Encode>
test::TraceDecoder decode_after_header(Encode encode) {
  static char header[4096];
  static char body[64 * 1024];
  const test::ScratchDir scratch;
  const std::string cmdline = (scratch / "cmdline").string();
  write_file(cmdline, std::string("/bin/prog\0-x\0\0", 14));
  PacketEncoder encoder(header, sizeof header);
  encoder.handshake();
  encode_process_info(encoder, 77, 4, cmdline.c_str());
  PacketEncoder body_encoder(body, sizeof body);
  const std::size_t body_size = encode(body_encoder, body, scratch);
  EXPECT_FALSE(encoder.overflowed());
  EXPECT_FALSE(body_encoder.overflowed());
  const std::string path = (scratch / "trace.rtrace").string();
  std::ofstream file(path, std::ios::binary);
  file.write(header, static_cast<std::streamsize>(encoder.size()));
  file.write(body, static_cast<std::streamsize>(body_size));
  file.close();
  return test::decode_file(path);
}

// The trace of what `expand` writes for the internal ring record at `record` (transient_record.h,
// path_record.h, release_record.h), read back through the post-processor's reader.
template <typename Expand>
test::TraceDecoder read_back(Expand expand, const char* record) {
  return decode_after_header([&](PacketEncoder&, char* body, const test::ScratchDir&) {
    return expand(record, body, 4096);
  });
}

TEST(TracerCallEncoding, ACallWithArgumentsAndFramesReadsBackAsItWas) {
  const RtraceArg args[] = {{"path", "/tmp/x"}, {"flags", "0x42"}};
  const RtraceCall call{.resource_type = 3,
                        .kind = sprtrace::kCallAlloc,
                        .name = "open",
                        .size = std::uint64_t{5} << 32,  // beyond the CALL's field: in RSIZ
                        .id = 0x1122334455667788,
                        .args = args,
                        .arg_count = 2};
  const std::uintptr_t frames[] = {0x401000, 0x402000, 0x7fff00001234};
  const test::TraceDecoder trace =
      decode_after_header([&](PacketEncoder&, char* body, const test::ScratchDir&) {
        const CallPackets packets(call, 3);
        packets.write(body, 0x5, 1234, frames);
        return packets.size();
      });
  ASSERT_TRUE(trace.complete()) << trace.error();
  EXPECT_EQ(trace.pid, 77U);
  EXPECT_EQ(trace.process, "/bin/prog");
  EXPECT_EQ(trace.depth, 4U);
  ASSERT_EQ(trace.calls.size(), 1U);
  const test::DecodedCall& decoded = trace.calls[0];
  EXPECT_EQ(decoded.resource_type, 3U);
  EXPECT_EQ(decoded.context, 5U);
  EXPECT_EQ(decoded.timestamp, 1234U);
  EXPECT_EQ(decoded.kind, 2U);
  EXPECT_EQ(decoded.name, "open");
  EXPECT_EQ(decoded.size, std::uint64_t{5} << 32);
  EXPECT_EQ(decoded.id, 0x1122334455667788U);
  EXPECT_EQ(decoded.frames, (std::vector<std::uint64_t>{0x401000, 0x402000, 0x7fff00001234}));
  EXPECT_EQ(decoded.args, (std::vector<std::pair<std::string, std::string>>{{"path", "/tmp/x"},
                                                                            {"flags", "0x42"}}));
}

// Texts of every length up to 40 (short ones are copied inline, call_packets.h), each ending
// (with its NUL) at the end of a page followed by an inaccessible one: copied exactly, and
// never read past their end.
TEST(TracerCallEncoding, TextsOfEveryLengthAreCopiedExactlyWithoutReadingPastThem) {
  const long page = sysconf(_SC_PAGESIZE);
  void* pages = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(pages, MAP_FAILED);
  char* guard = static_cast<char*>(pages) + page;
  ASSERT_EQ(mprotect(guard, page, PROT_NONE), 0);
  for (std::size_t length = 0; length <= 40; ++length) {
    SCOPED_TRACE(length);
    std::string text;
    for (std::size_t i = 0; i < length; ++i) {
      text += static_cast<char>('a' + (i * 7 + length) % 26);
    }
    char* at_end = guard - length - 1;
    std::memcpy(at_end, text.c_str(), length + 1);
    const RtraceArg args[] = {{at_end, at_end}};
    const RtraceCall call{.resource_type = 1,
                          .kind = sprtrace::kCallAlloc,
                          .name = at_end,
                          .size = length,
                          .id = 0x1000 + length,
                          .args = args,
                          .arg_count = 1};
    const test::TraceDecoder trace =
        decode_after_header([&](PacketEncoder&, char* body, const test::ScratchDir&) {
          const CallPackets packets(call, 0);
          packets.write(body, 0, 1, nullptr);
          return packets.size();
        });
    ASSERT_TRUE(trace.complete()) << trace.error();
    ASSERT_EQ(trace.calls.size(), 1U);
    EXPECT_EQ(trace.calls[0].name, text);
    EXPECT_EQ(trace.calls[0].args,
              (std::vector<std::pair<std::string, std::string>>{{text, text}}));
  }
  munmap(pages, 2 * page);
}

// A transient call: the release is a copy of the allocation's CALL with kind free and size 0,
// followed by its own backtrace (here of 1 frame, the allocation's has 2).
TEST(TracerCallEncoding, TheReleaseOfATransientCallCopiesTheAllocation) {
  const RtraceCall call = allocation_call("memcpy", 64, 0xabc0);
  const std::uintptr_t frames[] = {0x401000, 0x402000};
  const test::TraceDecoder trace =
      decode_after_header([&](PacketEncoder&, char* body, const test::ScratchDir&) {
        const CallPackets packets(call, 2);
        const std::size_t bound = 2 * packets.size();
        packets.write(body, 0, 99, frames);
        // Too little room for the release: nothing (the caller then records nothing).
        EXPECT_EQ(append_release(body, packets.size(), packets.size() + 8, frames, 1), 0U);
        const std::size_t length = append_release(body, packets.size(), bound, frames, 1);
        EXPECT_GT(length, packets.size());
        return length;
      });
  ASSERT_TRUE(trace.complete()) << trace.error();
  ASSERT_EQ(trace.calls.size(), 2U);
  const test::DecodedCall& allocation = trace.calls[0];
  const test::DecodedCall& release = trace.calls[1];
  EXPECT_EQ(allocation.kind, 2U);
  EXPECT_EQ(allocation.size, 64U);
  EXPECT_EQ(allocation.frames, (std::vector<std::uint64_t>{0x401000, 0x402000}));
  EXPECT_EQ(release.kind, 1U);
  EXPECT_EQ(release.size, 0U);
  EXPECT_EQ(release.id, 0xabc0U);
  EXPECT_EQ(release.name, "memcpy");
  EXPECT_EQ(release.timestamp, 99U);
  EXPECT_EQ(release.frames, (std::vector<std::uint64_t>{0x401000}));
}

// A transient call's record in the ring (transient_record.h), written at an address that is 8-byte
// aligned and at one that is not (ring records are 4-byte aligned), expands into exactly the
// bytes of its four packets as CallPackets and append_release write them, and into nothing when
// a byte of room is missing.
TEST(TracerTransientRecord, ExpandsIntoTheBytesOfTheAllocationAndItsRelease) {
  alignas(8) static char ring[4096];
  static char expected[4096];
  static char expanded[4096];
  const std::uintptr_t frames[] = {0x401000, 0x402000, 0x403000};
  for (const std::size_t offset : {std::size_t{0}, std::size_t{4}}) {
    for (const std::uint32_t release_frames : {0U, 3U}) {
      RtraceCall call = allocation_call("__memmove_chk", std::uint64_t{7} << 32, 0xabc0);
      call.resource_type = 2;
      char* record = ring + offset;
      std::uintptr_t* in_ring = transient_frames(record);
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(in_ring) % 8, 0U);
      std::memcpy(in_ring, frames, sizeof frames);
      const std::size_t length = write_transient(record, call, 0x5, 4321, 3, 3, release_frames);
      EXPECT_LE(length, transient_record_bound(3));
      EXPECT_EQ(length, static_cast<std::size_t>(reinterpret_cast<char*>(in_ring + 3) - record));
      EXPECT_TRUE(is_transient_record(record));

      const CallPackets packets(call, 3);
      packets.write(expected, 0x5, 4321, frames);
      const std::size_t expected_length =
          append_release(expected, packets.size(), sizeof expected, frames, release_frames);
      ASSERT_GT(expected_length, packets.size());
      SharedFrames seen;
      EXPECT_EQ(expand_transient(record, seen, expanded, expected_length - 1), 0U);
      ASSERT_EQ(expand_transient(record, seen, expanded, expected_length), expected_length);
      EXPECT_EQ(std::memcmp(expanded, expected, expected_length), 0)
          << "offset " << offset << ", release frames " << release_frames;
      EXPECT_FALSE(is_transient_record(expected));  // a CALL packet
    }
  }
}

// The expansion reads back through the post-processor's reader as the allocation and its release.
TEST(TracerTransientRecord, TheExpansionReadsBackAsAnAllocationAndItsRelease) {
  alignas(8) static char ring[1024];
  const RtraceCall call = allocation_call("memset", 1039, 0xdef0);
  std::uintptr_t* frames = transient_frames(ring + 4);
  frames[0] = 0x401000;
  frames[1] = 0x402000;
  const std::size_t length = write_transient(ring + 4, call, 0, 99, 2, 2, 2);
  EXPECT_GT(length, 0U);
  SharedFrames seen;
  const test::TraceDecoder trace =
      decode_after_header([&](PacketEncoder&, char* body, const test::ScratchDir&) {
        return expand_transient(ring + 4, seen, body, 4096);
      });
  ASSERT_TRUE(trace.complete()) << trace.error();
  ASSERT_EQ(trace.calls.size(), 2U);
  EXPECT_EQ(trace.calls[0].kind, 2U);
  EXPECT_EQ(trace.calls[0].name, "memset");
  EXPECT_EQ(trace.calls[0].size, 1039U);
  EXPECT_EQ(trace.calls[0].id, 0xdef0U);
  EXPECT_EQ(trace.calls[0].timestamp, 99U);
  EXPECT_EQ(trace.calls[0].frames, (std::vector<std::uint64_t>{0x401000, 0x402000}));
  EXPECT_EQ(trace.calls[1].kind, 1U);
  EXPECT_EQ(trace.calls[1].size, 0U);
  EXPECT_EQ(trace.calls[1].id, 0xdef0U);
  EXPECT_EQ(trace.calls[1].frames, trace.calls[0].frames);
}

// Records that share their outer frames with the previous transient record keep only the
// others (8 bytes in the ring for a memcpy after a memset in the same function instead of 80),
// and expand into exactly the bytes of the whole backtrace's packets; the same backtrace again
// keeps none; another depth, or another outer frame, keeps all; deeper than
// SharedFrames::kMaxShared always keeps all and shares nothing after it.
TEST(TracerTransientRecord, KeepsOnlyTheFramesThatDifferFromThePreviousRecord) {
  alignas(8) static char ring[8192];
  static char expected[8192];
  static char expanded[8192];
  const RtraceCall call = allocation_call("memcpy", 100, 0xabc0);
  std::vector<std::uintptr_t> deep(SharedFrames::kMaxShared + 1, 0x405000);
  struct Step {
    std::vector<std::uintptr_t> frames;
    std::uint32_t kept;
  };
  const std::vector<Step> steps = {
      {{0x401000, 0x402000, 0x403000}, 3},  // nothing before it
      {{0x401010, 0x402000, 0x403000}, 1},  // another call site, the same callers
      {{0x401010, 0x402000, 0x403000}, 0},  // the same backtrace
      {{0x401010, 0x402010, 0x403000}, 2},
      {{0x401010, 0x402010, 0x403010}, 3},  // another outer frame
      {{0x401010, 0x402010}, 2},            // another depth
      {{}, 0},
      {{0x401010, 0x402010}, 2},
      {deep, SharedFrames::kMaxShared + 1},
      {deep, SharedFrames::kMaxShared + 1},  // too deep to share
      {{0x401010, 0x402010}, 2},
      {{0x401020, 0x402010}, 1},
  };
  SharedFrames producer;
  SharedFrames consumer;
  std::size_t offset = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const std::vector<std::uintptr_t>& frames = steps[i].frames;
    const auto count = static_cast<std::uint32_t>(frames.size());
    char* record = ring + offset;
    std::uint32_t kept = 0;
    if (count <= SharedFrames::kMaxShared) {
      std::copy(frames.begin(), frames.end(), producer.walked);
      kept = producer.keep(producer.walked, count, transient_frames(record));
    } else {
      std::copy(frames.begin(), frames.end(), transient_frames(record));
      kept = producer.keep_all(count);
    }
    EXPECT_EQ(kept, steps[i].kept) << "step " << i;
    const std::uint32_t release_frames = i % 2 == 0 ? count : 0;
    const std::size_t length = write_transient(record, call, 0, 7, count, kept, release_frames);
    EXPECT_EQ(length, static_cast<std::size_t>(
                          reinterpret_cast<char*>(transient_frames(record) + kept) - record));

    const CallPackets packets(call, count);
    packets.write(expected, 0, 7, frames.data());
    const std::size_t expected_length =
        append_release(expected, packets.size(), sizeof expected, frames.data(), release_frames);
    ASSERT_GT(expected_length, packets.size());
    // Too little room, then the whole record: the same frames both times.
    EXPECT_EQ(expand_transient(record, consumer, expanded, expected_length - 1), 0U);
    ASSERT_EQ(expand_transient(record, consumer, expanded, sizeof expanded), expected_length)
        << "step " << i;
    EXPECT_EQ(std::memcmp(expanded, expected, expected_length), 0) << "step " << i;
    offset = (offset + length + 3) / 4 * 4;  // the next record where the ring would put it
  }
}

// The producer compares four frames at a time from the outermost, then two, then one
// (SharedFrames::keep): at every depth up to kMaxShared, a backtrace whose last difference from
// the previous one is at any position keeps exactly the frames down to it, and writes them.
TEST(TracerTransientRecord, KeepsTheFramesDownToTheLastDifferenceAtEveryPosition) {
  for (std::uint32_t count = 1; count <= SharedFrames::kMaxShared; ++count) {
    std::vector<std::uintptr_t> previous(count);
    for (std::uint32_t i = 0; i < count; ++i) {
      previous[i] = 0x401000 + 0x10 * i;
    }
    // `last`: the outermost frame that differs; count: none does.
    for (std::uint32_t last = 0; last <= count; ++last) {
      SharedFrames producer;
      std::uintptr_t record[SharedFrames::kMaxShared] = {};
      std::copy(previous.begin(), previous.end(), producer.walked);
      ASSERT_EQ(producer.keep(producer.walked, count, record), count);
      std::vector<std::uintptr_t> next = previous;
      for (std::uint32_t i = 0; last < count && i <= last; ++i) {
        next[i] += i % 3 == 1 && i != last ? 0 : 0x8000;  // some below `last` the same
      }
      std::copy(next.begin(), next.end(), producer.walked);
      const std::uint32_t expected = last == count ? 0 : last + 1;
      std::fill(std::begin(record), std::end(record), 0);
      EXPECT_EQ(producer.keep(producer.walked, count, record), expected)
          << count << " frames, last difference " << last;
      EXPECT_TRUE(std::equal(record, record + expected, next.begin())) << count << ", " << last;
      EXPECT_EQ(std::count(record + expected, std::end(record), 0),
                static_cast<std::ptrdiff_t>(SharedFrames::kMaxShared - expected));
    }
  }
}

// A backtrace the walk memo remembered keeps what keep keeps (SharedFrames::keep_remembered): a
// producer taking every backtrace from memo entries, known pairs of entries from the cache of
// the last time, against one comparing every backtrace (keep), over random steps: a backtrace
// from one of four entries (most of their frames shared, the difference at any position, 3 or 10
// frames), an entry's frames written anew (a new stamp), a walked backtrace, one too deep to
// share, the ring reset (the count forgotten). The same kept counts and frames, a drain that
// restores every backtrace, and most steps from the cache.
TEST(TracerTransientRecord, ABacktraceFromTheWalkMemoKeepsWhatComparingKeeps) {
  static WalkMemo memo{};
  memo = WalkMemo{};
  std::uint32_t random = 12345;
  const auto next = [&random](std::uint32_t bound) {
    random ^= random << 13;
    random ^= random >> 17;
    random ^= random << 5;
    return random % bound;
  };
  // The entries' frames: the same outer frames, a few of the inner ones changed.
  const auto rewrite = [&](WalkMemo::Entry& entry) {
    std::uintptr_t frames[10];
    const std::uint32_t count = next(4) == 0 ? 3 : 10;
    for (std::uint32_t i = 0; i < count; ++i) {
      frames[i] = 0x401000 + 0x10 * i + (next(3) == 0 ? 0x8000 * (1 + next(2)) : 0);
    }
    memo.filling = &entry;
    memo.keep(frames, count);
  };
  for (std::uint32_t e = 0; e < 4; ++e) {
    rewrite(memo.entries[e]);
  }
  SharedFrames cached;
  SharedFrames compared;
  SharedFrames consumer;
  std::uintptr_t deep[SharedFrames::kMaxShared + 1];
  std::fill(std::begin(deep), std::end(deep), 0x405000);
  std::uint32_t from_cache = 0;
  constexpr std::uint32_t kSteps = 20000;
  for (std::uint32_t step = 0; step < kSteps; ++step) {
    std::uintptr_t record_a[SharedFrames::kMaxShared + 1] = {};
    std::uintptr_t record_b[SharedFrames::kMaxShared + 1] = {};
    const std::uint32_t what = next(100);
    const std::uintptr_t* backtrace = nullptr;
    std::uint32_t count = 0;
    std::uint32_t kept = 0;
    if (what < 2) {
      rewrite(memo.entries[next(4)]);
      continue;
    }
    if (what < 3) {
      cached.count = compared.count = consumer.count = 0;  // EventRing::reset
      continue;
    }
    if (what < 8) {
      count = 1 + next(10);
      for (std::uint32_t i = 0; i < count; ++i) {
        cached.walked[i] = 0x401000 + 0x10 * i + (next(2) == 0 ? 0x8000 : 0);
      }
      backtrace = cached.walked;
      std::copy(backtrace, backtrace + count, compared.walked);
      kept = cached.keep(cached.walked, count, record_a);
      ASSERT_EQ(compared.keep(compared.walked, count, record_b), kept) << "step " << step;
    } else if (what < 10) {
      count = SharedFrames::kMaxShared + 1;
      backtrace = deep;
      std::copy(std::begin(deep), std::end(deep), record_a);
      kept = cached.keep_all(count);
      ASSERT_EQ(compared.keep_all(count), kept);
    } else {
      WalkMemo::Entry& entry = memo.entries[next(4)];
      from_cache += cached.stamp != 0 && entry.after_for(cached.stamp).stamp == cached.stamp &&
                    cached.count == entry.frame_count;
      backtrace = entry.frames;
      count = entry.frame_count;
      kept = cached.keep_remembered(entry, record_a);
      ASSERT_EQ(compared.keep(entry.frames, count, record_b), kept) << "step " << step;
      ASSERT_TRUE(std::equal(record_a, record_a + kept, record_b)) << "step " << step;
    }
    const std::uintptr_t* restored = consumer.restore(record_a, count, kept);
    ASSERT_NE(restored, nullptr) << "step " << step;
    ASSERT_TRUE(std::equal(restored, restored + count, backtrace)) << "step " << step;
  }
  EXPECT_GT(from_cache, kSteps / 3);  // half the memo steps: not across counts or new stamps
}

// A record that says it shares frames the drain's copy does not have (another depth), or keeps
// more than it has, expands into nothing rather than into frames it never had.
TEST(TracerTransientRecord, ARecordThatCannotHaveBeenWrittenExpandsIntoNothing) {
  alignas(8) static char ring[1024];
  static char expanded[4096];
  const RtraceCall call = allocation_call("memset", 8, 0x10);
  SharedFrames consumer;
  transient_frames(ring)[0] = 0x401000;
  write_transient(ring, call, 0, 0, 2, 1, 0);  // shares a frame nothing came before
  EXPECT_EQ(expand_transient(ring, consumer, expanded, sizeof expanded), 0U);
  write_transient(ring, call, 0, 0, 1, 2, 0);  // keeps 2 of 1
  EXPECT_EQ(expand_transient(ring, consumer, expanded, sizeof expanded), 0U);
  write_transient(ring, call, 0, 0, 1, 1, 0);
  EXPECT_GT(expand_transient(ring, consumer, expanded, sizeof expanded), 0U);
}

// An open's record (path_record.h), with paths empty, short, long and beyond a string field's
// limit, with and without frames, at a ring address 8-byte aligned and at one that is not,
// expands into exactly the bytes CallPackets writes for the call with `$path` and the hex value,
// and into nothing when a byte of room is missing.
TEST(TracerPathRecord, ExpandsIntoTheBytesOfTheCallWithItsArguments) {
  alignas(8) static char ring[80 * 1024];
  static char expected[80 * 1024];
  static char expanded[80 * 1024];
  const std::uintptr_t frames[] = {0x401000, 0x402000, 0x403000};
  const std::string paths[] = {"", "x", "/dev/null", "/tmp/a/rather/long/path/to/some/file.txt",
                               std::string(kMaxPathText + 10, 'p')};
  for (const std::size_t offset : {std::size_t{0}, std::size_t{4}}) {
    for (const std::uint32_t frame_count : {0U, 3U}) {
      for (const std::string& path : paths) {
        RtraceCall call = allocation_call("open64", 1, 17);
        call.resource_type = 3;
        const PathArgument argument{path.c_str(), std::min(path.size(), kMaxPathText), "flags",
                                    0x80042};
        char* record = ring + offset;
        std::uintptr_t* in_ring = path_record_frames(record, argument.path_length);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(in_ring) % 8, 0U);
        std::memcpy(in_ring, frames, sizeof frames);
        const std::size_t length =
            write_path_record(record, call, argument, 0x5, 4321, frame_count);
        EXPECT_LE(length, path_record_bound(argument.path_length, frame_count));
        EXPECT_TRUE(is_path_record(record));
        EXPECT_FALSE(is_transient_record(record));

        const RtraceArg args[] = {{"path", path.c_str()}, {"flags", "0x80042"}};
        call.args = args;
        call.arg_count = 2;
        const CallPackets packets(call, frame_count);
        packets.write(expected, 0x5, 4321, frames);
        const std::size_t expected_length = packets.size();
        EXPECT_EQ(expand_path_record(record, expanded, expected_length - 1), 0U);
        ASSERT_EQ(expand_path_record(record, expanded, expected_length), expected_length);
        EXPECT_EQ(std::memcmp(expanded, expected, expected_length), 0)
            << "offset " << offset << ", frames " << frame_count << ", path " << path.size();
        EXPECT_FALSE(is_path_record(expected));  // a CALL packet
      }
    }
  }
}

// The path is copied when the record is written (the caller's buffer may change right after);
// the expansion reads back through the post-processor's reader as the open with its arguments.
TEST(TracerPathRecord, KeepsThePathAsItWasAndReadsBackAsTheCallWithItsArguments) {
  alignas(8) static char ring[1024];
  char path[] = "/dev/null";
  const RtraceCall call = allocation_call("open", 1, 3);
  const PathArgument argument{path, std::strlen(path), "mode", 0644};
  std::uintptr_t* frames = path_record_frames(ring + 4, argument.path_length);
  frames[0] = 0x401000;
  frames[1] = 0x402000;
  EXPECT_GT(write_path_record(ring + 4, call, argument, 0, 99, 2), 0U);
  std::memcpy(path, "/etc/zzzz", sizeof path);
  const test::TraceDecoder trace = read_back(expand_path_record, ring + 4);
  ASSERT_TRUE(trace.complete()) << trace.error();
  ASSERT_EQ(trace.calls.size(), 1U);
  EXPECT_EQ(trace.calls[0].kind, 2U);
  EXPECT_EQ(trace.calls[0].name, "open");
  EXPECT_EQ(trace.calls[0].size, 1U);
  EXPECT_EQ(trace.calls[0].id, 3U);
  EXPECT_EQ(trace.calls[0].timestamp, 99U);
  EXPECT_EQ(trace.calls[0].frames, (std::vector<std::uint64_t>{0x401000, 0x402000}));
  using Args = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(trace.calls[0].args, (Args{{"path", "/dev/null"}, {"mode", "0x1a4"}}));
}

// How one kind of fixed ring record is written and expanded (release_record.h,
// allocation_record.h).
struct FixedRecordKind {
  std::uintptr_t* (*frames)(char* record);
  std::size_t (*write)(char* record, const RtraceCall& call, std::uint32_t context_mask,
                       std::uint32_t timestamp_ms, std::uint32_t frame_count);
  std::size_t (*expand)(const char* record, char* out, std::size_t room);
  std::size_t (*bound)(std::uint32_t depth);
  bool (*is)(const char* record);
};

// `call` written as a record of `kind` with 0, 1 and 4 frames, at a ring address 8-byte aligned
// and at one that is not, expands into exactly the bytes CallPackets writes for it, and into
// nothing when a byte of room is missing; the record is of no other kind.
void expect_expands_into_the_packets(const FixedRecordKind& kind, const RtraceCall& call) {
  alignas(8) static char ring[0x11000];
  static char expected[0x11000];
  static char expanded[0x11000];
  const std::uintptr_t frames[] = {0x401000, 0x402000, 0x403000, 0x404000};
  for (const std::size_t offset : {std::size_t{0}, std::size_t{4}}) {
    for (const std::uint32_t frame_count : {0U, 1U, 4U}) {
      char* record = ring + offset;
      std::uintptr_t* in_ring = kind.frames(record);
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(in_ring) % 8, 0U);
      std::memcpy(in_ring, frames, sizeof frames);
      const std::size_t length = kind.write(record, call, 0x9, 777, frame_count);
      EXPECT_LE(length, kind.bound(frame_count));
      EXPECT_TRUE(kind.is(record));
      EXPECT_EQ(is_release_record(record) + is_allocation_record(record) + is_path_record(record) +
                    is_transient_record(record),
                1);

      const CallPackets packets(call, frame_count);
      packets.write(expected, 0x9, 777, frames);
      const std::size_t expected_length = packets.size();
      EXPECT_EQ(kind.expand(record, expanded, expected_length - 1), 0U);
      ASSERT_EQ(kind.expand(record, expanded, expected_length), expected_length);
      EXPECT_EQ(std::memcmp(expanded, expected, expected_length), 0)
          << "offset " << offset << ", frames " << frame_count << ", size " << call.size
          << ", name " << std::string(call.name).substr(0, 40);
      EXPECT_FALSE(kind.is(expected));  // a CALL packet
    }
  }
}

// A release's record (release_record.h: close, free, fclose, ...), with names short and long,
// without frames and with them (free-backtraces).
TEST(TracerReleaseRecord, ExpandsIntoTheBytesOfTheRelease) {
  const FixedRecordKind kind{release_record_frames, write_release_record, expand_release_record,
                             release_record_bound, is_release_record};
  for (const char* name : {"close", "free", "operator delete[](void*, unsigned long)", ""}) {
    const RtraceCall call{.resource_type = 2,
                          .kind = sprtrace::kCallFree,
                          .name = name,
                          .size = 0,
                          .id = 0xfedcba9876543210,
                          .args = nullptr,
                          .arg_count = 0};
    ASSERT_TRUE(fits_release_record(call));
    expect_expands_into_the_packets(kind, call);
  }
}

// Only a release of size 0 without arguments is kept so: the record has no room for the rest.
TEST(TracerReleaseRecord, OnlyReleasesWithoutSizeOrArgumentsFit) {
  const RtraceArg args[] = {{"name", "/shm"}};
  const RtraceCall release{2, sprtrace::kCallFree, "close", 0, 3, nullptr, 0};
  EXPECT_TRUE(fits_release_record(release));
  RtraceCall with_args = release;
  with_args.args = args;
  with_args.arg_count = 1;
  EXPECT_FALSE(fits_release_record(with_args));
  RtraceCall with_size = release;
  with_size.size = 4096;
  EXPECT_FALSE(fits_release_record(with_size));
  RtraceCall allocation = release;
  allocation.kind = sprtrace::kCallAlloc;
  EXPECT_FALSE(fits_release_record(allocation));
}

// `call` written as a record of `kind` with two frames reads back through the post-processor's
// reader as the call it stands for.
void expect_reads_back_as_the_call(const FixedRecordKind& kind, const RtraceCall& call) {
  alignas(8) static char ring[1024];
  std::uintptr_t* frames = kind.frames(ring + 4);
  frames[0] = 0x401000;
  frames[1] = 0x402000;
  EXPECT_GT(kind.write(ring + 4, call, 0, 42, 2), 0U);
  const test::TraceDecoder trace = read_back(kind.expand, ring + 4);
  ASSERT_TRUE(trace.complete()) << trace.error();
  ASSERT_EQ(trace.calls.size(), 1U);
  EXPECT_EQ(trace.calls[0].kind, call.kind);
  EXPECT_EQ(trace.calls[0].name, call.name);
  EXPECT_EQ(trace.calls[0].size, call.size);
  EXPECT_EQ(trace.calls[0].id, call.id);
  EXPECT_EQ(trace.calls[0].timestamp, 42U);
  EXPECT_EQ(trace.calls[0].frames, (std::vector<std::uint64_t>{0x401000, 0x402000}));
  EXPECT_TRUE(trace.calls[0].args.empty());
}

// The expansion reads back through the post-processor's reader as the release it stands for.
TEST(TracerReleaseRecord, ReadsBackAsTheRelease) {
  expect_reads_back_as_the_call(
      {release_record_frames, write_release_record, expand_release_record, release_record_bound,
       is_release_record},
      RtraceCall{3, sprtrace::kCallFree, "fclose", 0, 0x55550000, nullptr, 0});
}

// An allocation's record (allocation_record.h: malloc, operator new, open, ...), with names short,
// long and longer than a packet's string holds, sizes up to one the CALL packet caps.
TEST(TracerAllocationRecord, ExpandsIntoTheBytesOfTheAllocation) {
  const FixedRecordKind kind{allocation_record_frames, write_allocation_record,
                             expand_allocation_record, allocation_record_bound,
                             is_allocation_record};
  const std::string too_long(CallPackets::kMaxText + 10, 'n');
  for (const std::uint64_t size : {std::uint64_t{0}, std::uint64_t{24}, std::uint64_t{1} << 40}) {
    for (const char* name : {"malloc", "operator new[](unsigned long)", "", too_long.c_str()}) {
      const RtraceCall call = allocation_call(name, size, 0xfedcba9876543210);
      ASSERT_TRUE(fits_allocation_record(call));
      expect_expands_into_the_packets(kind, call);
    }
  }
}

// Only an allocation without arguments is kept so: the record has no room for them.
TEST(TracerAllocationRecord, OnlyAllocationsWithoutArgumentsFit) {
  const RtraceArg args[] = {{"alignment", "64"}};
  const RtraceCall allocation = allocation_call("malloc", 4096, 3);
  EXPECT_TRUE(fits_allocation_record(allocation));
  RtraceCall with_args = allocation;
  with_args.args = args;
  with_args.arg_count = 1;
  EXPECT_FALSE(fits_allocation_record(with_args));
  RtraceCall release = allocation;
  release.kind = sprtrace::kCallFree;
  release.size = 0;
  EXPECT_FALSE(fits_allocation_record(release));
}

// The expansion reads back through the post-processor's reader as the allocation it stands for.
TEST(TracerAllocationRecord, ReadsBackAsTheAllocation) {
  expect_reads_back_as_the_call(
      {allocation_record_frames, write_allocation_record, expand_allocation_record,
       allocation_record_bound, is_allocation_record},
      allocation_call("calloc", 4096, 0x55550000));
}

// Without free backtraces (the default) the release's BTRC is empty.
TEST(TracerCallEncoding, TheReleaseOfATransientCallHasAnEmptyBacktraceByDefault) {
  const RtraceCall call = allocation_call("memset", 1039, 0xdef0);
  const std::uintptr_t frames[] = {0x401000, 0x402000, 0x403000};
  const test::TraceDecoder trace =
      decode_after_header([&](PacketEncoder&, char* body, const test::ScratchDir&) {
        const CallPackets packets(call, 3);
        packets.write(body, 0, 7, frames);
        // Exactly the room of a CALL and an empty BTRC more: enough; a byte less: nothing.
        const std::size_t call_length = packets.size() - 12 - 3 * 8;
        const std::size_t bound = packets.size() + call_length + 12;
        EXPECT_EQ(append_release(body, packets.size(), bound - 1, frames, 0), 0U);
        const std::size_t length = append_release(body, packets.size(), bound, frames, 0);
        EXPECT_EQ(length, bound);
        return length;
      });
  ASSERT_TRUE(trace.complete()) << trace.error();
  ASSERT_EQ(trace.calls.size(), 2U);
  EXPECT_EQ(trace.calls[0].frames, (std::vector<std::uint64_t>{0x401000, 0x402000, 0x403000}));
  EXPECT_EQ(trace.calls[1].kind, 1U);
  EXPECT_EQ(trace.calls[1].size, 0U);
  EXPECT_EQ(trace.calls[1].id, 0xdef0U);
  EXPECT_EQ(trace.calls[1].name, "memset");
  EXPECT_TRUE(trace.calls[1].frames.empty());
}

// RCMD keeps every argument (the empty one too); REND the reason, the signal and the resident set
// size read from a status file.
TEST(TracerSessionPackets, CommandLineAndTraceEndReadBack) {
  const test::TraceDecoder trace = decode_after_header([&](PacketEncoder& encoder, char*,
                                                           const test::ScratchDir& scratch) {
    encode_command_line(encoder, 77, (scratch / "cmdline").c_str());
    const std::string status = (scratch / "status").string();
    write_file(status, "VmHWM:\t    2048 kB\nVmRSS:\t    1024 kB\n");
    encode_trace_end(encoder, 77, {.reason = sprtrace::kEndSignal, .signal = 11}, status.c_str());
    return encoder.size();
  });
  ASSERT_TRUE(trace.complete()) << trace.error();
  ASSERT_TRUE(trace.command_line.has_value());
  EXPECT_EQ(trace.command_line->arguments, (std::vector<std::string>{"/bin/prog", "-x", ""}));
  EXPECT_FALSE(trace.command_line->cut);
  ASSERT_TRUE(trace.end.has_value());
  EXPECT_EQ(trace.end->pid, 77U);
  EXPECT_EQ(trace.end->reason, EndReason::Signal);
  EXPECT_EQ(trace.end->signal, 11U);
  EXPECT_EQ(trace.end->peak_rss_bytes, 2048U * 1024);
  EXPECT_EQ(trace.end->rss_bytes, 1024U * 1024);
}

TEST(TracerSessionPackets, HeapInfoReadsBack) {
  const test::TraceDecoder trace =
      decode_after_header([&](PacketEncoder& encoder, char*, const test::ScratchDir&) {
        encode_heap_info(encoder, 0x600000);
        return encoder.size();
      });
  ASSERT_TRUE(trace.complete()) << trace.error();
  EXPECT_EQ(trace.heap_infos, 1U);
}

}  // namespace
}  // namespace rtrace::tracer
