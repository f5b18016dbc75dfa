// mpatrol files read into the trace model (mpatrol_model_reader.h): what each record becomes,
// checked against mptrace's own statistics on every readable fixture, against the fixtures'
// programs for the source frames, and on generated and damaged files.
#include "formats/mpatrol/mpatrol_model_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "formats/format_registry.h"
#include "formats/mpatrol/mpatrol_decoder.h"
#include "formats/mpatrol/mpatrol_test_support.h"
#include "formats/mpatrol/mpatrol_writer.h"
#include "formats/mpatrol/mptrace_report.h"
#include "io/output_stream.h"
#include "support/recording_sink.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

using mpatrol::TraceWriter;
using test::fixture;
using test::read_file;

// mptrace's statistics, computed from the model's calls alone.
class TotalsSink final : public TraceSink {
 public:
  void call(const CallRecord& r) override {
    const Call& c = r.call;
    EXPECT_EQ(c.resource_type, mpatrol::kMemoryType);
    if (c.kind == CallKind::Alloc) {
      ++allocated;
      allocated_bytes += c.size;
      live[c.resource_id] = c.size;
      live_bytes += c.size;
    } else if (c.kind == CallKind::Free) {
      const auto block = live.find(c.resource_id);
      ASSERT_NE(block, live.end()) << "free of a block not alive: call " << c.index;
      ++freed;
      freed_bytes += block->second;
      live_bytes -= block->second;
      live.erase(block);
    }
    peak_count = std::max<std::uint64_t>(peak_count, live.size());
    peak_bytes = std::max(peak_bytes, live_bytes);
    threads.insert(c.thread);
  }
  void heap_info(const HeapInfo& info) override { heaps.push_back(info); }
  void finish() override { ++finishes; }

  std::uint64_t allocated = 0, allocated_bytes = 0, freed = 0, freed_bytes = 0;
  std::uint64_t peak_count = 0, peak_bytes = 0, live_bytes = 0;
  std::map<Address, std::uint64_t> live;
  std::set<std::uint64_t> threads;
  std::vector<HeapInfo> heaps;
  int finishes = 0;
};

std::unique_ptr<InputStream> input_of(std::string bytes, const std::string& name = "t") {
  return open_input(std::make_unique<MemorySource>(std::move(bytes)), name);
}

// The statistics mptrace prints for `bytes`.
mpatrol::MptraceStatistics mptrace_statistics(const std::string& bytes) {
  const test::ScratchDir dir;
  OutputStream out((dir / "out").string(), {});
  CollectingDiagnostics diagnostics;
  mpatrol::MptraceReport report({}, out, nullptr, nullptr, diagnostics, "t");
  const auto input = input_of(bytes);
  mpatrol::decode(*input, report, diagnostics);
  return report.statistics();
}

class ReadableFixtures : public testing::TestWithParam<const char*> {};

// Leaks are mptrace's "unfreed", the peak its "peak"; H and I records are heap information.
TEST_P(ReadableFixtures, CallsGiveMptracesStatistics) {
  const std::string bytes = read_file(fixture(std::string("mpatrol/") + GetParam()));
  const mpatrol::MptraceStatistics expected = mptrace_statistics(bytes);
  TotalsSink totals;
  CollectingDiagnostics diagnostics;
  const auto input = input_of(bytes);
  mpatrol::read_mpatrol_trace(*input, totals, diagnostics);
  EXPECT_EQ(diagnostics.text(), "");
  EXPECT_EQ(totals.finishes, 1);
  EXPECT_EQ(totals.allocated, expected.alloc_count);
  EXPECT_EQ(totals.allocated_bytes, expected.alloc_bytes);
  EXPECT_EQ(totals.freed, expected.free_count);
  EXPECT_EQ(totals.freed_bytes, expected.free_bytes);
  EXPECT_EQ(totals.peak_count, expected.peak_count);
  EXPECT_EQ(totals.peak_bytes, expected.peak_bytes);
  ASSERT_EQ(totals.heaps.size(), expected.reserve_count + expected.internal_count > 0 ? 1U : 0U);
  if (!totals.heaps.empty()) {
    EXPECT_EQ(totals.heaps[0].arena, expected.reserve_bytes);
    EXPECT_EQ(totals.heaps[0].hblks, expected.internal_count);
    EXPECT_EQ(totals.heaps[0].hblkhd, expected.internal_bytes);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, ReadableFixtures,
    testing::Values("basic/basic.trace", "cxx/cxx.trace", "threads/threads.trace",
                    "edge/e05_version_1_4_4_format.trace", "edge/e06_big_endian_header.trace",
                    "edge/e09_empty_no_events.trace", "edge/e11_32bit_word_header.trace"));

// basic.c: make_buffer mallocs at line 18, make_table callocs at 26, grow_buffer reallocs at 31,
// release frees at 36; libc's stdout buffer has no source.
TEST(MpatrolModel, BasicTraceRecordByRecord) {
  test::RecordingSink sink;
  CollectingDiagnostics diagnostics;
  const auto input = input_of(read_file(fixture("mpatrol/basic/basic.trace")));
  mpatrol::read_mpatrol_trace(*input, sink, diagnostics);
  EXPECT_EQ(diagnostics.text(), "");
  const std::vector<std::string>& lines = sink.lines();
  ASSERT_GE(lines.size(), 3U);
  EXPECT_NE(lines[0].find("origin=mpatrol 1.5.1"), std::string::npos) << lines[0];
  EXPECT_EQ(sink.call_count(), 13U);  // 8 A, 2 R (two calls each), 3 F
  // The symbols: function, "()" for C names, file, line; no module.
  std::vector<std::string> names;
  for (const auto& [id, symbol] : sink.symbols()) {
    names.push_back(symbol.where.function + symbol.where.parameters + " " + symbol.where.file +
                    ":" + std::to_string(symbol.where.line) + " module=" + symbol.module);
  }
  std::ranges::sort(names);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "grow_buffer() basic.c:31 module=",
                       "make_buffer() basic.c:18 module=",
                       "make_table() basic.c:26 module=",
                       "release() basic.c:36 module=",
                   }));
}

TEST(MpatrolModel, ReallocIsAFreeOfTheOldBlockThenAnAllocationWithTheSource) {
  TraceWriter w({.word_size = 8, .big_endian = false, .version = 10501});
  w.alloc(7, 0x1000, 10, {.thread = 0, .function = "f", .file = "a.c", .line = 3});
  w.realloc(7, 0x2000, 30, {.thread = 0, .function = "g", .file = "a.c", .line = 4});
  w.free(7, {.thread = 0, .function = "h", .file = "a.c", .line = 5});
  w.end_marker();
  TotalsSink totals;
  CollectingDiagnostics diagnostics;
  const auto input = input_of(w.bytes());
  mpatrol::read_mpatrol_trace(*input, totals, diagnostics);
  EXPECT_EQ(totals.allocated, 2U);
  EXPECT_EQ(totals.freed, 2U);
  EXPECT_TRUE(totals.live.empty());
  EXPECT_EQ(totals.peak_bytes, 30U);
  EXPECT_TRUE(totals.heaps.empty());  // no H or I records: no heap information
}

// Thread ids are pthread_self() values (about 2^47 on x86-64): they reach the model as they are.
// These two differ only above bit 32, so a 32-bit thread id would have merged them.
TEST(MpatrolModel, ThreadIdsKeepAllTheirBits) {
  constexpr std::uint64_t kMain = 0x7f3a00001740ULL;
  constexpr std::uint64_t kWorker = 0x7f3b00001740ULL;
  TraceWriter w({.word_size = 8, .big_endian = false, .version = 10501});
  w.alloc(1, 0x1000, 1, {.thread = kMain});
  w.alloc(2, 0x2000, 1, {.thread = kWorker});
  w.alloc(3, 0x3000, 1, {.thread = kMain});
  w.alloc(4, 0x4000, 1, {.thread = 0});
  w.end_marker();
  TotalsSink totals;
  CollectingDiagnostics diagnostics;
  const auto input = input_of(w.bytes());
  mpatrol::read_mpatrol_trace(*input, totals, diagnostics);
  EXPECT_EQ(totals.threads, (std::set<std::uint64_t>{0, kMain, kWorker}));

  // threads.trace (main and four workers): the ids the decoder reads, every one of them.
  TotalsSink real;
  const std::string bytes = read_file(fixture("mpatrol/threads/threads.trace"));
  mpatrol::read_mpatrol_trace(*input_of(bytes), real, diagnostics);
  std::set<std::uint64_t> decoded;
  const auto raw = test::decode_bytes(bytes);
  for (const test::OwnedEvent& event : raw->visitor.events_) {
    if (event.thread != 0) {
      decoded.insert(event.thread);
    }
  }
  EXPECT_EQ(decoded.size(), 5U);
  EXPECT_EQ(real.threads, decoded);
  EXPECT_EQ(diagnostics.text(), "");
}

TEST(MpatrolModel, InconsistentEventsAreWarnedAboutAndLeftOut) {
  TraceWriter w({.word_size = 8, .big_endian = false, .version = 10501});
  // Offsets: the header is 20 bytes; an A or R is tag, index, 2-byte address, size, then thread,
  // function, file and line (one byte each): 9 bytes; an F is 6.
  w.alloc(1, 0x1000, 8);    // 20
  w.free(2);                // 29: unknown index
  w.free(1);                // 35
  w.free(1);                // 41: already freed
  w.realloc(3, 0x2000, 4);  // 47: unknown index
  w.alloc(4, 0x3000, 8);    // 56
  w.alloc(4, 0x4000, 8);    // 65: twice
  w.end_marker();
  std::string warnings;
  TotalsSink totals;
  CollectingDiagnostics diagnostics;
  const auto input = input_of(w.bytes());
  mpatrol::read_mpatrol_trace(*input, totals, diagnostics);
  // (The ASSERT in TotalsSink checks that no free of a dead block came through.)
  // A 1, A 4, A 4 (its first block stays alive: nothing frees it), F 1.
  EXPECT_EQ(totals.allocated, 3U);
  EXPECT_EQ(totals.freed, 1U);
  EXPECT_EQ(totals.live, (std::map<Address, std::uint64_t>{{0x3000, 8}, {0x4000, 8}}));
  warnings = diagnostics.text();
  EXPECT_EQ(warnings,
            "t:29: warning: unknown allocation index 2 (never allocated or already freed)\n"
            "t:41: warning: unknown allocation index 1 (never allocated or already freed)\n"
            "t:47: warning: unknown allocation index 3 (never allocated or already freed)\n"
            "t:65: warning: allocation index 4 has been allocated twice without being freed\n");
}

TEST(MpatrolModel, LimitsBoundTheSymbolsKept) {
  TraceWriter w({.word_size = 8, .big_endian = false, .version = 10501});
  w.alloc(1, 0x1000, 1, {.thread = 11, .function = "a", .file = "x.c", .line = 1});
  w.alloc(2, 0x2000, 1, {.thread = 12, .function = "b", .file = "x.c", .line = 1});
  w.alloc(3, 0x3000, 1, {.thread = 11, .function = "a", .file = "x.c", .line = 1});
  w.end_marker();
  test::RecordingSink sink;
  CollectingDiagnostics diagnostics;
  const auto input = input_of(w.bytes());
  mpatrol::read_mpatrol(*input, sink, diagnostics, {.symbols = 1});
  EXPECT_EQ(sink.symbols().size(), 1U);
  EXPECT_EQ(diagnostics.text(),
            "t:35: warning: more than 1 distinct source positions: frames of new ones are left "
            "out\n");
}

// A file without end marker: every record, then the decoder's warning; corrupt data: every
// record before it, finish(), then the error.
TEST(MpatrolModel, DamagedFilesDeliverEverythingBeforeTheDamage) {
  TotalsSink no_end;
  CollectingDiagnostics diagnostics;
  const auto e01 = input_of(read_file(fixture("mpatrol/edge/e01_no_end_marker.trace")));
  mpatrol::read_mpatrol_trace(*e01, no_end, diagnostics);
  EXPECT_EQ(no_end.finishes, 1);
  EXPECT_EQ(no_end.allocated, 8U);
  EXPECT_EQ(no_end.live.size(), 3U);
  EXPECT_NE(diagnostics.text(), "");

  TotalsSink corrupt;
  const auto e08 = input_of(read_file(fixture("mpatrol/edge/e08_unknown_record_byte.trace")));
  try {
    mpatrol::read_mpatrol_trace(*e08, corrupt, diagnostics);
    ADD_FAILURE() << "no error";
  } catch (const InputError& error) {
    EXPECT_EQ(error.position(), 293U);
  }
  EXPECT_EQ(corrupt.finishes, 1);
  EXPECT_EQ(corrupt.allocated, 0U);
  ASSERT_EQ(corrupt.heaps.size(), 1U);  // the H and I records before the damage
  EXPECT_EQ(corrupt.heaps[0].arena, 159744U);
}

class HeaderSink final : public TraceSink {
 public:
  void header(const TraceHeader& h) override { header_ = h; }
  void heap_info(const HeapInfo& info) override { heaps_.push_back(info); }
  void finish() override {}
  TraceHeader header_;
  std::vector<HeapInfo> heaps_;
};

// The header's origin and metadata come from the file's header words; system memory taken
// after the first event adds a second, cumulative heap information at the end.
TEST(MpatrolModel, HeaderMetadataAndLateSystemMemory) {
  TraceWriter w({.word_size = 4, .big_endian = true, .version = 10405});
  w.reserve(0x10000, 4096);
  w.internal(0x90000, 16384);
  w.alloc(1, 0x10010, 8);
  w.reserve(0x20000, 8192);
  w.end_marker();
  HeaderSink sink;
  CollectingDiagnostics diagnostics;
  const auto input = input_of(w.bytes());
  mpatrol::read_mpatrol_trace(*input, sink, diagnostics);
  EXPECT_EQ(diagnostics.text(), "");
  EXPECT_EQ(sink.header_.origin, "mpatrol 1.4.5");
  const Metadata& m = sink.header_.metadata;
  EXPECT_EQ(m.get_or("mpatrol.version", "-"), "1.4.5");
  EXPECT_EQ(m.get_or("mpatrol.version_number", "-"), "10405");
  EXPECT_EQ(m.get_or("mpatrol.byte_order", "-"), "big");
  EXPECT_EQ(m.get_or("mpatrol.word_size", "-"), "4");
  ASSERT_EQ(sink.heaps_.size(), 2U);
  EXPECT_EQ(sink.heaps_[0].heap_bottom, 0x10000U);
  EXPECT_EQ(sink.heaps_[0].heap_top, 0x11000U);
  EXPECT_EQ(sink.heaps_[0].arena, 4096U);
  EXPECT_EQ(sink.heaps_[0].hblks, 1U);
  EXPECT_EQ(sink.heaps_[0].hblkhd, 16384U);
  EXPECT_EQ(sink.heaps_[1].heap_bottom, 0x10000U);
  EXPECT_EQ(sink.heaps_[1].heap_top, 0x22000U);
  EXPECT_EQ(sink.heaps_[1].arena, 12288U);
  EXPECT_EQ(sink.heaps_[1].hblks, 1U);
}

// The format table reads mpatrol files by their content.
TEST(MpatrolModel, FormatTableReadsMtrc) {
  TotalsSink totals;
  CollectingDiagnostics diagnostics;
  const auto input = input_of(read_file(fixture("mpatrol/basic/basic.trace")));
  EXPECT_EQ(read_trace(*input, totals, diagnostics).name, "mpatrol");
  EXPECT_EQ(totals.live.size(), 3U);
}

}  // namespace
}  // namespace rtrace
