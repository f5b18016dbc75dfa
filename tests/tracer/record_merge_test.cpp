// The ordering of the tracer's events across threads (rtrace_tracer_core: thread_rings.h,
// record_merge.h, trace_output.h), without a traced process: threads record calls into their
// own rings while this thread merges them into a managed trace file, as the control thread does;
// the file, read back with the post-processor's reader, must hold every call in ticket order.
#include "tracer/core/record_merge.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "allocation_call.h"
#include "support/test_paths.h"
#include "trace_decoder.h"
#include "tracer/core/options.h"
#include "tracer/core/thread_rings.h"
#include "tracer/output/allocation_record.h"
#include "tracer/output/call_packets.h"
#include "tracer/output/packet_encoder.h"
#include "tracer/output/release_record.h"
#include "tracer/output/session_packets.h"
#include "tracer/output/trace_output.h"
#include "tracer/output/transient_record.h"

namespace rtrace::tracer {
namespace {

constexpr std::size_t kIdFromCallEnd = 8;  // the CALL packet ends with the 8-byte id

// Records `count` calls whose id is their ticket, as the tracer's producers do: encode first,
// then take the ticket, then publish. A full ring waits for the merging thread. Now and then a
// thread holds its ticket a while before publishing. The calls allocate `size` bytes.
void record_calls(int count, std::size_t size = 16) {
  EventRing* ring = my_ring();
  ASSERT_NE(ring, nullptr);
  const std::uintptr_t frames[] = {0x401000, 0x402000};
  const RtraceCall call = allocation_call("malloc", size, 0);
  const CallPackets packets(call, 2);
  for (int i = 0; i < count; ++i) {
    char* space = nullptr;
    while ((space = ring->try_reserve(packets.size())) == nullptr) {
      sched_yield();
    }
    packets.write(space, 0, 0, frames);
    std::uint32_t call_payload = 0;
    std::memcpy(&call_payload, space + 4, sizeof call_payload);
    const std::uint64_t ticket = take_ticket(*ring);
    std::memcpy(space + 8 + call_payload - kIdFromCallEnd, &ticket, sizeof ticket);
    if (i % 1000 == 0) {
      ::usleep(200);  // preempted while holding a ticket: later tickets must wait for this one
    }
    ring->publish(ticket, packets.size());
    release_ticket(*ring);
  }
}

void merge_once() {
  if (drain_try_lock()) {
    merge_records(safe_bound(nullptr), 0, true);
    drain_unlock();
  }
}

// Opens a managed trace in `directory` (`compact`: in the compact format, uncompressed) with its
// handshake and PINF; returns its path.
std::string open_trace(const std::string& directory, bool compact = false) {
  TracerOptions options;
  options.compact = compact;
  EXPECT_LT(directory.size(), sizeof options.managed_dir);
  std::memcpy(options.managed_dir, directory.c_str(),
              std::min(directory.size() + 1, sizeof options.managed_dir - 1));
  EXPECT_TRUE(output_open(options, nullptr, ::getpid()));
  char header[256];
  PacketEncoder encoder(header, sizeof header);
  encoder.handshake();
  encoder.begin_packet(sprtrace::PacketType::ProcessInfo);
  encoder.u32(static_cast<std::uint32_t>(::getpid()));
  encoder.u32(0);
  encoder.u32(0);
  encoder.u32(2);
  encoder.string("merge");
  encoder.end_packet();
  output_append(header, encoder.size());
  rings_init(nullptr);
  // The file's number goes on counting from the previous test's in this process (the TSan run
  // runs both tests in one): the scratch directory holds just this one.
  std::string path;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    EXPECT_TRUE(path.empty()) << entry.path();
    path = entry.path().string();
  }
  return path;
}

// In the compact format each call also names the thread that made it (THREAD records): thread t
// allocates 16 + t bytes, so its calls must carry its id.
void expect_calls_of_many_threads_in_ticket_order(bool compact) {
  const test::ScratchDir scratch;
  const std::string path = open_trace(scratch.path().string(), compact);

  // 4 threads of 60,000 calls (about 4 MB each): every ring fills up more than once, so the
  // merge runs while they record.
  constexpr int kThreads = 4;
  constexpr int kCalls = 60000;
  std::atomic<int> running{kThreads};
  std::vector<std::uint64_t> tids(kThreads);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&running, &tids, t] {
      tids[t] = static_cast<std::uint64_t>(::gettid());
      record_calls(kCalls, 16 + t);
      running.fetch_sub(1);
    });
  }
  while (running.load() > 0) {
    merge_once();
    sched_yield();
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  merge_once();
  if (compact) {  // a compact trace without END is incomplete
    char packet[256];
    PacketEncoder encoder(packet, sizeof packet);
    encode_trace_end(encoder, ::getpid(), SessionEnd{}, "/proc/self/status");
    output_append(packet, encoder.size());
  }
  output_close();

  const test::TraceDecoder trace = test::decode_file(path);
  ASSERT_TRUE(trace.complete()) << trace.error();
  ASSERT_EQ(trace.calls.size(), std::size_t{kThreads} * kCalls);
  for (std::size_t i = 1; i < trace.calls.size(); ++i) {
    ASSERT_LT(trace.calls[i - 1].id, trace.calls[i].id) << "call " << i;
  }
  for (std::size_t i = 0; i < trace.calls.size(); ++i) {
    const test::DecodedCall& call = trace.calls[i];
    ASSERT_GE(call.size, 16U);
    ASSERT_LT(call.size, 16U + kThreads);
    ASSERT_EQ(call.thread, compact ? tids[call.size - 16] : 0) << "call " << i;
  }
}

TEST(TracerRecordMerge, CallsOfManyThreadsComeOutInTicketOrder) {
  expect_calls_of_many_threads_in_ticket_order(false);
}

TEST(TracerRecordMerge, CompactCallsOfManyThreadsComeOutInTicketOrderWithTheirThreads) {
  expect_calls_of_many_threads_in_ticket_order(true);
}

// The backtrace of transient record number `i` of the tests below: its innermost frame changes
// from one record to the next, its outermost now and then, its depth every 7th record, so that
// the records keep 1, 2 or all of their frames (shared_frames.h).
std::vector<std::uintptr_t> transient_backtrace(int i) {
  std::vector<std::uintptr_t> frames = {0x401000 + static_cast<std::uintptr_t>(i % 3) * 0x10,
                                        0x402000, 0x403000};
  if (i % 7 == 0) {
    frames.push_back(0x404000);
  }
  frames.back() += i % 5 == 0 ? 0x20 : 0;
  return frames;
}

// Writes transient record number `i` (transient_backtrace) into `ring` as the tracer does: the
// frames in place, as many kept as the ring's producer copy says. Merges when the ring is full.
void record_transient(EventRing& ring, const RtraceCall& call, int i, bool release_frames,
                      void (*merge)()) {
  const std::vector<std::uintptr_t> frames = transient_backtrace(i);
  const auto count = static_cast<std::uint32_t>(frames.size());
  char* space = nullptr;
  while ((space = ring.try_reserve(transient_record_bound(count))) == nullptr) {
    merge();
  }
  std::copy(frames.begin(), frames.end(), ring.producer_frames.walked);
  const std::uint32_t kept =
      ring.producer_frames.keep(ring.producer_frames.walked, count, transient_frames(space));
  const std::size_t length =
      write_transient(space, call, 0, 0, count, kept, release_frames ? count : 0);
  ring.publish(take_ticket(ring), length);
  release_ticket(ring);
}

std::vector<std::uint64_t> expected_backtrace(int i) {
  const std::vector<std::uintptr_t> frames = transient_backtrace(i);
  return {frames.begin(), frames.end()};
}

// Transient records (transient_record.h) among ordinary ones go out expanded, in place: each as
// its allocation and its release, with its whole backtrace, though most records keep only the
// frames that differ from the previous one's. Their names are long (2 x 5000 bytes per
// expansion), so the merge's expansion buffer fills up and is flushed many times within one merge
// (a record whose expansion did not fit is expanded again after the flush).
TEST(TracerRecordMerge, TransientRecordsGoOutAsTheirAllocationAndRelease) {
  const test::ScratchDir scratch;
  const std::string path = open_trace(scratch.path().string());
  EventRing* ring = my_ring();
  ASSERT_NE(ring, nullptr);
  const std::string long_name(5000, 'm');
  const std::uintptr_t frames[] = {0x401000, 0x402000};
  constexpr int kRecords = 400;
  for (int i = 0; i < kRecords; ++i) {
    const bool transient = i % 2 == 0;
    const RtraceCall call =
        allocation_call(transient ? long_name.c_str() : "malloc", 16 + i, 0x1000 + i);
    if (transient) {
      record_transient(*ring, call, i, i % 4 == 0, merge_once);
      continue;
    }
    const CallPackets packets(call, 2);
    char* space = nullptr;
    while ((space = ring->try_reserve(packets.size())) == nullptr) {
      merge_once();
    }
    packets.write(space, 0, 0, frames);
    ring->publish(take_ticket(*ring), packets.size());
    release_ticket(*ring);
  }
  merge_once();
  output_close();

  const test::TraceDecoder trace = test::decode_file(path);
  ASSERT_TRUE(trace.complete()) << trace.error();
  ASSERT_EQ(trace.calls.size(), std::size_t{kRecords} / 2 * 3);
  std::size_t next = 0;
  for (int i = 0; i < kRecords; ++i) {
    const test::DecodedCall& call = trace.calls[next++];
    EXPECT_EQ(call.kind, 2U) << i;
    EXPECT_EQ(call.size, 16U + static_cast<unsigned>(i)) << i;
    EXPECT_EQ(call.id, 0x1000U + static_cast<unsigned>(i)) << i;
    if (i % 2 != 0) {
      EXPECT_EQ(call.frames, (std::vector<std::uint64_t>{0x401000, 0x402000})) << i;
      EXPECT_EQ(call.name, "malloc") << i;
      continue;
    }
    EXPECT_EQ(call.frames, expected_backtrace(i)) << i;
    EXPECT_EQ(call.name, long_name) << i;
    const test::DecodedCall& release = trace.calls[next++];
    EXPECT_EQ(release.kind, 1U) << i;
    EXPECT_EQ(release.size, 0U) << i;
    EXPECT_EQ(release.id, call.id) << i;
    EXPECT_EQ(release.name, long_name) << i;
    EXPECT_EQ(release.frames, i % 4 == 0 ? expected_backtrace(i) : std::vector<std::uint64_t>{})
        << i;
  }
}

// A thread waiting for room in its full ring (ring_producer.cpp) is woken at the end of a merge
// pass and once an eighth of its ring has been given back, not at every flush of the output: woken
// per flush, it filled that little room at once and slept again (2 M traced transfers made 3,657
// futex calls; woken per eighth, 609).
// Here a full ring of transient records with 200-byte names takes some 60 flushes to write out;
// each wake-up counts as a merge (merges_done, what the waiters sleep on).
TEST(TracerRecordMerge, WaitersForRoomAreWokenPerEighthOfTheRingNotPerFlush) {
  const test::ScratchDir scratch;
  const std::string path = open_trace(scratch.path().string());
  EventRing* ring = my_ring();
  ASSERT_NE(ring, nullptr);
  merge_once();  // what an earlier test left in the ring
  const std::string name(200, 'm');
  int records = 0;
  while (ring->try_reserve(transient_record_bound(4)) != nullptr) {
    record_transient(*ring, allocation_call(name.c_str(), 16, 0x1000 + records), records, false,
                     merge_once);
    ++records;
  }
  const int before = merges_done();
  merge_once();
  const int wake_ups = merges_done() - before;
  output_close();

  const test::TraceDecoder trace = test::decode_file(path);
  ASSERT_TRUE(trace.complete()) << trace.error();
  ASSERT_EQ(trace.calls.size(), 2 * static_cast<std::size_t>(records));
  const std::uint64_t written = std::filesystem::file_size(path);
  // record_merge.cpp's g_expanded, where the packets of transient records are expanded.
  constexpr std::uint64_t kExpansionBuffer = std::uint64_t{256} * 1024;
  EXPECT_GT(written / kExpansionBuffer, 40U) << "the expansion buffer should fill many times";
  // Seven eighths of the ring given back (each wake-up at the first flush past an eighth), then
  // the end of the pass.
  EXPECT_GE(wake_ups, 6);
  EXPECT_LE(wake_ups, 9);
}

// A thread that wants the drain lock (the exit's final drain) waits as long as its holder takes
// records, however long that is: a writer far behind at exit would otherwise lose its records
// and the trace's END. A holder that takes nothing is given up on after the patience.
//
// Whether the waiter must wait follows from what the holder did, as it measured it: a loaded
// machine may stall the holder itself past the patience (then giving up is right), and the
// holder that takes nothing keeps the lock until the waiter has given up, not for a set time.
TEST(TracerRecordMerge, TheDrainLockIsWaitedForWhileItsHolderTakesRecords) {
  using Clock = std::chrono::steady_clock;
  const test::ScratchDir scratch;
  const std::string path = open_trace(scratch.path().string());
  constexpr auto kHeld = std::chrono::milliseconds(1500);
  constexpr auto kNeverGivenUp = std::chrono::seconds(30);  // a waiter without patience
  constexpr long kPatienceMs = 400;
  constexpr auto kPatience = std::chrono::milliseconds(kPatienceMs);
  std::size_t recorded = 0;
  for (const bool taking : {true, false}) {
    std::atomic<bool> locked{false};
    std::atomic<bool> waited_out{false};
    Clock::duration longest_pause{};  // between the holder's runs of records (or their ends)
    std::thread holder([&] {
      ASSERT_TRUE(drain_try_lock());
      locked = true;
      const Clock::time_point start = Clock::now();
      Clock::time_point last = start;
      while (taking ? Clock::now() - start < kHeld
                    : !waited_out && Clock::now() - start < kNeverGivenUp) {
        if (taking) {
          record_calls(1);
          merge_records(safe_bound(nullptr), 0, true);
          ++recorded;
          longest_pause = std::max(longest_pause, Clock::now() - last);
          last = Clock::now();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      longest_pause = std::max(longest_pause, Clock::now() - last);
      drain_unlock();
    });
    while (!locked) {
      std::this_thread::yield();
    }
    const Clock::time_point start = Clock::now();
    const bool got = drain_lock(kPatienceMs);
    const auto waited = Clock::now() - start;
    waited_out = true;
    if (got) {
      drain_unlock();
    }
    holder.join();
    const auto pause_ms = std::chrono::duration_cast<std::chrono::milliseconds>(longest_pause);
    if (taking && longest_pause < kPatience / 2) {
      EXPECT_TRUE(got) << "gave up on a holder taking records every " << pause_ms.count()
                       << " ms at most";
      EXPECT_GT(waited, kHeld / 2) << "got the lock before the holder let it go";
    } else if (taking) {
      // Stalled near or past the patience: either outcome is right (the threads read the clock
      // apart), and that it happened is said.
      std::printf("the holder stalled %lld ms: the waiter %s\n",
                  static_cast<long long>(pause_ms.count()), got ? "waited" : "gave up");
    } else {
      EXPECT_FALSE(got) << "waited for a holder that took nothing";
      EXPECT_GE(waited, kPatience) << "gave up before the patience";
    }
  }
  output_close();
  const test::TraceDecoder trace = test::decode_file(path);
  ASSERT_TRUE(trace.complete()) << trace.error();
  EXPECT_EQ(trace.calls.size(), recorded);
}

// Records a merge takes without writing them (before the trace's floor, as after a restart)
// still tell the drain their frames: the records after them, which share those frames, go out
// with their whole backtraces.
TEST(TracerRecordMerge, TransientRecordsNotWrittenStillLendTheirFramesToTheNext) {
  const test::ScratchDir scratch;
  const std::string path = open_trace(scratch.path().string());
  EventRing* ring = my_ring();
  ASSERT_NE(ring, nullptr);
  constexpr int kSkipped = 32;  // the first written record shares frames with the last skipped
  constexpr int kWritten = 30;
  for (int i = 0; i < kSkipped; ++i) {
    record_transient(*ring, allocation_call("memset", 1, 0x100 + i), i, false, merge_once);
  }
  ASSERT_TRUE(drain_try_lock());
  merge_records(safe_bound(nullptr), 0, false);
  drain_unlock();
  EXPECT_EQ(ring->tail.load(), ring->head.load());
  for (int i = kSkipped; i < kSkipped + kWritten; ++i) {
    record_transient(*ring, allocation_call("memcpy", 2, 0x100 + i), i, true, merge_once);
  }
  merge_once();
  output_close();

  const test::TraceDecoder trace = test::decode_file(path);
  ASSERT_TRUE(trace.complete()) << trace.error();
  ASSERT_EQ(trace.calls.size(), std::size_t{2} * kWritten);
  for (int i = 0; i < kWritten; ++i) {
    const test::DecodedCall& allocation = trace.calls[2 * static_cast<std::size_t>(i)];
    const test::DecodedCall& release = trace.calls[2 * static_cast<std::size_t>(i) + 1];
    EXPECT_EQ(allocation.id, 0x100U + kSkipped + static_cast<unsigned>(i)) << i;
    EXPECT_EQ(allocation.frames, expected_backtrace(kSkipped + i)) << i;
    EXPECT_EQ(release.frames, allocation.frames) << i;
  }
}

// Releases of every shape (names short, long and longer than a packet's string holds; no frames,
// one, four), between allocations, as the memory module records them.
struct Release {
  RtraceCall call;
  std::uint32_t context;
  std::uint32_t timestamp;
  std::uint32_t frame_count;
};

std::vector<Release> releases_of_every_shape(const std::string& long_name,
                                             const std::string& too_long_name) {
  std::vector<Release> releases;
  const char* const names[] = {"free", "close", "", long_name.c_str(), too_long_name.c_str()};
  std::uint32_t n = 0;
  for (const char* name : names) {
    for (const std::uint32_t frame_count : {0U, 1U, 4U}) {
      const RtraceCall call{.resource_type = 1 + n % 2,
                            .kind = sprtrace::kCallFree,
                            .name = name,
                            .size = 0,
                            .id = 0x7f0000001000ULL + 0x40ULL * (n % 3),
                            .args = nullptr,
                            .arg_count = 0};
      releases.push_back({call, n % 3, 1000 + n / 2, frame_count});
      ++n;
    }
  }
  return releases;
}

// The sizes the allocations before the releases take in turn: 0, small, large, and one the
// CALL packet's 32-bit field caps.
constexpr std::uint64_t kAllocationSizes[] = {32, 0, 1U << 20, (std::uint64_t{1} << 33) + 5};

// How each call of record_releases goes into the ring: as its packets, or as the internal
// record of fixed size that stands for them (release_record.h, allocation_record.h).
struct RecordShapes {
  bool release_records;
  bool allocation_records;
};

// Reserves `room` bytes of `ring`, merging while it is full.
char* reserve_merging(EventRing& ring, std::size_t room) {
  char* space = nullptr;
  while ((space = ring.try_reserve(room)) == nullptr) {
    merge_once();
  }
  return space;
}

// Writes each release, each after an allocation of the block it releases (named as the release,
// of one of kAllocationSizes, with as many frames), as `shapes` says, into this thread's ring,
// merges them into the trace at `path`, ends it with REND when `end` (whose time makes two traces
// differ) and returns the file's bytes.
std::string record_releases(const std::string& path, const std::vector<Release>& releases,
                            RecordShapes shapes, bool end) {
  EventRing* ring = my_ring();
  EXPECT_NE(ring, nullptr);
  const std::uintptr_t frames[] = {0x401000, 0x402000, 0x403000, 0x404000};
  std::size_t n = 0;
  for (const Release& release : releases) {
    RtraceCall allocation =
        allocation_call(release.call.name, kAllocationSizes[n++ % 4], release.call.id);
    allocation.resource_type = release.call.resource_type;
    const CallPackets allocation_packets(allocation, release.frame_count);
    char* space = reserve_merging(*ring, shapes.allocation_records
                                             ? allocation_record_bound(release.frame_count)
                                             : allocation_packets.size());
    std::size_t length = allocation_packets.size();
    if (shapes.allocation_records) {
      std::memcpy(allocation_record_frames(space), frames, sizeof frames);
      length = write_allocation_record(space, allocation, release.context, release.timestamp,
                                       release.frame_count);
    } else {
      allocation_packets.write(space, release.context, release.timestamp, frames);
    }
    ring->publish(take_ticket(*ring), length);
    release_ticket(*ring);

    const CallPackets release_packets(release.call, release.frame_count);
    space =
        reserve_merging(*ring, shapes.release_records ? release_record_bound(release.frame_count)
                                                      : release_packets.size());
    length = release_packets.size();
    if (shapes.release_records) {
      std::memcpy(release_record_frames(space), frames, sizeof frames);
      length = write_release_record(space, release.call, release.context, release.timestamp,
                                    release.frame_count);
    } else {
      release_packets.write(space, release.context, release.timestamp, frames);
    }
    ring->publish(take_ticket(*ring), length);
    release_ticket(*ring);
  }
  merge_once();
  if (end) {
    char packet[256];
    PacketEncoder encoder(packet, sizeof packet);
    encode_trace_end(encoder, ::getpid(), SessionEnd{}, "/proc/self/status");
    output_append(packet, encoder.size());
  }
  output_close();
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

// The trace of the releases (and their allocations) recorded as `shapes` says, in the compact
// format or the sp-rtrace protocol, must be the same, byte for byte, as that of their packets, and
// read back as the calls. In the compact format the merge transcodes a record from its fields,
// not from the packets it stands for; in the protocol it expands the record into them
// (record_merge.cpp).
void expect_records_go_out_as_their_packets(RecordShapes shapes, bool compact) {
  const std::string long_name = "operator delete[](void*, unsigned long)";
  const std::string too_long_name(CallPackets::kMaxText + 100, 'f');
  const std::vector<Release> releases = releases_of_every_shape(long_name, too_long_name);
  const test::ScratchDir from_packets;
  const std::string packets_path = open_trace(from_packets.path().string(), compact);
  const std::string expected = record_releases(packets_path, releases, {false, false}, false);
  const test::ScratchDir from_records;
  const std::string records_path = open_trace(from_records.path().string(), compact);
  const std::string written = record_releases(records_path, releases, shapes, true);
  ASSERT_FALSE(expected.empty());
  ASSERT_GT(written.size(), expected.size());
  EXPECT_TRUE(written.compare(0, expected.size(), expected) == 0)  // then the end
      << "compact " << compact << ": the records' trace differs from the packets'";

  const test::TraceDecoder trace = test::decode_file(records_path);
  ASSERT_TRUE(trace.complete()) << trace.error();
  ASSERT_EQ(trace.calls.size(), 2 * releases.size());
  for (std::size_t i = 0; i < releases.size(); ++i) {
    const std::string name(releases[i].call.name);
    const test::DecodedCall& allocation = trace.calls[2 * i];
    EXPECT_EQ(allocation.kind, 2U) << i;
    EXPECT_EQ(allocation.name, name.substr(0, CallPackets::kMaxText)) << i;
    EXPECT_EQ(allocation.size, kAllocationSizes[i % 4]) << i;  // 8 GiB + 5 included: never capped
    EXPECT_EQ(allocation.id, releases[i].call.id) << i;
    EXPECT_EQ(allocation.timestamp, releases[i].timestamp) << i;
    EXPECT_EQ(allocation.frames.size(), releases[i].frame_count) << i;
    const test::DecodedCall& release = trace.calls[2 * i + 1];
    EXPECT_EQ(release.kind, 1U) << i;
    EXPECT_EQ(release.name, name.substr(0, CallPackets::kMaxText)) << i;
    EXPECT_EQ(release.id, releases[i].call.id) << i;
    EXPECT_EQ(release.timestamp, releases[i].timestamp) << i;
    EXPECT_EQ(release.frames.size(), releases[i].frame_count) << i;
  }
}

TEST(TracerRecordMerge, ReleaseRecordsGoOutInTheCompactFormatAsTheirPackets) {
  expect_records_go_out_as_their_packets({true, false}, true);
}

TEST(TracerRecordMerge, AllocationRecordsGoOutInTheCompactFormatAsTheirPackets) {
  expect_records_go_out_as_their_packets({false, true}, true);
  expect_records_go_out_as_their_packets({true, true}, true);
}

TEST(TracerRecordMerge, AllocationAndReleaseRecordsGoOutInTheProtocolAsTheirPackets) {
  expect_records_go_out_as_their_packets({false, true}, false);
  expect_records_go_out_as_their_packets({true, false}, false);
  expect_records_go_out_as_their_packets({true, true}, false);
}

}  // namespace
}  // namespace rtrace::tracer
