// mptrace's rules on generated traces: what an unknown index, a second free or a 0-byte block
// does to the table and the statistics; rounding of the average; slots of the simulation program;
// addresses above 2^31.
#include "formats/mpatrol/mptrace_report.h"

#include <gtest/gtest.h>

#include <string>

#include "formats/mpatrol/mpatrol_test_support.h"
#include "formats/mpatrol/mpatrol_writer.h"
#include "io/output_stream.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

using mpatrol::TraceWriter;
using test::read_file;
using test::ScratchDir;

struct Report {
  std::string out;
  std::string hatf;
  std::string sim;
  std::string warnings;
  mpatrol::MptraceStatistics stats;
};

Report report(TraceWriter& writer, bool verbose = true) {
  writer.end_marker();
  const ScratchDir dir;
  Report result;
  CollectingDiagnostics diagnostics;
  {
    OutputStream out((dir / "out").string(), {});
    OutputStream hatf((dir / "hatf").string(), {});
    OutputStream sim((dir / "sim").string(), {});
    mpatrol::MptraceReport r(
        {.verbose = verbose, .source = true, .trace_name = "t", .hatf_name = "h"}, out, &hatf, &sim,
        diagnostics, "t");
    auto input = open_input(std::make_unique<MemorySource>(writer.bytes()), "t");
    mpatrol::decode(*input, r, diagnostics);
    result.stats = r.statistics();
    out.commit();
    hatf.commit();
    sim.commit();
  }
  result.out = read_file(dir / "out");
  result.hatf = read_file(dir / "hatf");
  result.sim = read_file(dir / "sim");
  result.warnings = diagnostics.text();
  return result;
}

// The table rows only (between the dashes and the blank line).
std::string rows(const std::string& out) {
  const std::size_t begin = out.find('\n', out.find("------")) + 1;
  return out.substr(begin, out.find("\n\n") + 1 - begin);
}

// The events array of the simulation program.
std::string sim_events(const std::string& sim) {
  const std::size_t begin = sim.find("{\n    {") + 2;
  return sim.substr(begin, sim.find("    {0, 0, 0}") - begin);
}

TEST(MptraceReport, UnknownIndexAndSecondFreeAreWarnedAsMptraceDoes) {
  TraceWriter w({.word_size = 8, .version = 10501});
  w.alloc(10, 0x1000, 100);
  w.free(99);           // unknown: no row, but it takes an event number
  w.realloc(98, 0, 5);  // unknown too
  w.free(10);
  w.free(10);              // a second free: warned, and counted again as mptrace does
  w.alloc(10, 0x2000, 7);  // an index allocated again after its free: no warning
  w.alloc(10, 0x3000, 9);  // ...and again without a free: warned
  const Report r = report(w);
  EXPECT_EQ(r.warnings,
            "t:29: warning: unknown allocation index 99\n"
            "t:35: warning: unknown allocation index 98\n"
            "t:49: warning: allocation index 10 has already been freed\n"
            "t:64: warning: allocation index 10 has been allocated twice without being freed\n");
  // Life counts from the first allocation of the index, and the totals go below zero (they are
  // unsigned, as in mptrace) when a block is freed twice.
  EXPECT_EQ(rows(r.out),
            "     1  alloc       10  0x0000000000001000       100               1       100\n"
            "     4  free        10  0x0000000000001000       100       3       0         0\n"
            "     5  free        10  0x0000000000001000       100       4  18446744073709551615"
            "  18446744073709551516\n"
            "     6  alloc       10  0x0000000000002000         7               0"
            "  18446744073709551523\n"
            "     7  alloc       10  0x0000000000003000         9               1"
            "  18446744073709551532\n");
  EXPECT_EQ(r.stats.alloc_count, 3U);
  EXPECT_EQ(r.stats.free_count, 2U);
  EXPECT_EQ(r.stats.free_bytes, 200U);
}

TEST(MptraceReport, ZeroByteBlocksAreNeverTheSmallestAndTheAverageRoundsHalfToEven) {
  TraceWriter w({.word_size = 8, .version = 10501});
  w.alloc(1, 0x10, 0);
  w.alloc(2, 0x20, 1);
  w.alloc(3, 0x30, 4);
  w.alloc(4, 0x40, 0);  // a last 0-byte block does not make 0 the smallest either
  const Report r = report(w, false);
  EXPECT_EQ(r.stats.smallest, 1U);
  EXPECT_EQ(r.stats.largest, 4U);
  // 5 / 4 = 1.25 -> 1
  EXPECT_NE(r.out.find("smallest size: 1 byte\nlargest size:  4 bytes\naverage size:  1 byte\n"),
            std::string::npos)
      << r.out;

  TraceWriter half({.word_size = 8, .version = 10501});
  half.alloc(1, 0x10, 1);
  half.alloc(2, 0x20, 4);  // 5 / 2 = 2.5 -> 2 (even)
  EXPECT_NE(report(half, false).out.find("average size:  2 bytes\n"), std::string::npos);
  TraceWriter odd({.word_size = 8, .version = 10501});
  odd.alloc(1, 0x10, 3);
  odd.alloc(2, 0x20, 4);  // 7 / 2 = 3.5 -> 4 (even)
  EXPECT_NE(report(odd, false).out.find("average size:  4 bytes\n"), std::string::npos);
}

TEST(MptraceReport, PeakCountAndPeakBytesAreSeparateMaxima) {
  TraceWriter w({.word_size = 8, .version = 10501});
  w.alloc(1, 0x10, 1000);
  w.free(1);
  w.alloc(2, 0x20, 1);
  w.alloc(3, 0x30, 1);
  w.realloc(3, 0x40, 500);
  const Report r = report(w, false);
  EXPECT_EQ(r.stats.peak_count, 2U);
  EXPECT_EQ(r.stats.peak_bytes, 1000U);
  EXPECT_NE(r.out.find("peak:      2 (1000 bytes)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("allocated: 4 (1502 bytes)\nfreed:     2 (1001 bytes)\n"), std::string::npos)
      << r.out;
}

TEST(MptraceReport, SimulationSlotsReuseTheLastFreedSlot) {
  TraceWriter w({.word_size = 8, .version = 10501});
  w.alloc(1, 0x10, 10);
  w.alloc(2, 0x20, 20);
  w.alloc(3, 0x30, 30);
  w.free(1);
  w.free(3);
  w.alloc(4, 0x40, 40);  // slot 3, freed last
  w.alloc(5, 0x50, 50);  // slot 1
  w.alloc(6, 0x60, 60);  // slot 4, a fresh one
  w.realloc(6, 0x70, 70);
  const Report r = report(w, false);
  EXPECT_EQ(sim_events(r.sim),
            "    {1, 10, 0},\n    {2, 20, 0},\n    {3, 30, 0},\n    {1, 0, 0},\n"
            "    {3, 0, 0},\n    {3, 40, 0},\n    {1, 50, 0},\n    {4, 60, 0},\n"
            "    {4, 70, 1},\n");
  EXPECT_NE(r.sim.find("    void *p[4];\n"), std::string::npos);
  EXPECT_EQ(r.hatf.substr(r.hatf.find("\n\n") + 2),
            "1 10 0x10\n1 20 0x20\n1 30 0x30\n2 0x10\n2 0x30\n1 40 0x40\n1 50 0x50\n"
            "1 60 0x60\n4 70 0x60 0x70\n");
}

TEST(MptraceReport, AddressesAndThreadsAbove2To31PrintRight) {
  TraceWriter w({.word_size = 8, .version = 10501});
  w.alloc(1, 0xFFFFFFFFFFFFFFF0ULL, 0x80000000ULL, {.thread = 0x8000000000000000ULL});
  w.internal(0x7ffff7b77000ULL, 16384);
  const Report r = report(w);
  EXPECT_EQ(rows(r.out),
            "     1  alloc        1  0xFFFFFFFFFFFFFFF0  2147483648               1  2147483648\n"
            "                        thread 9223372036854775808\n"
            "        internal        0x00007FFFF7B77000     16384\n");
  EXPECT_EQ(r.hatf.substr(r.hatf.find("\n\n") + 2), "1 2147483648 0xfffffffffffffff0\n");
}

TEST(MptraceReport, SourceLineShowsOnlyWhatIsKnown) {
  TraceWriter w({.word_size = 8, .version = 10501});
  w.alloc(1, 0x10, 1, {.function = "f"});
  w.alloc(2, 0x20, 1, {.file = "a.c"});             // file without line: nothing to show
  w.alloc(3, 0x30, 1, {.file = "a.c", .line = 3});  // file and line without function
  w.alloc(4, 0x40, 1, {.thread = 5, .line = 9});    // line without file: not shown
  const Report r = report(w);
  EXPECT_EQ(rows(r.out),
            "     1  alloc        1  0x0000000000000010         1               1         1\n"
            "                        in f\n"
            "     2  alloc        2  0x0000000000000020         1               2         2\n"
            "     3  alloc        3  0x0000000000000030         1               3         3\n"
            "                        at a.c line 3\n"
            "     4  alloc        4  0x0000000000000040         1               4         4\n"
            "                        thread 5\n");
}

}  // namespace
}  // namespace rtrace
