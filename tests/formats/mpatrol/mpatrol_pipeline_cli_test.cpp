// mpatrol traces through the whole pipeline, with the built `rtrace` command: `rtrace process`
// (plain, -l, -c, -s) and `rtrace report` on the fixtures.
//
// The expected texts come from the fixtures' mptrace output and programs: basic.c leaks
// make_buffer(100) (malloc at line 18), make_table(6) (calloc of 24 bytes at line 26) and libc's
// 4096-byte stdout buffer (no source), mptrace's "unfreed: 3 (4220 bytes)" and "peak: 5 (4220
// bytes)"; the heap information spans the H records of mptrace's --verbose table (16 reserve
// blocks, 159744 bytes, from 0x555555589000 to 0x5555555A4000 + 49152; 10 internal blocks of
// 16384 bytes).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/test_paths.h"

namespace rtrace {
namespace {

using test::fixture;
using test::run_command;
using test::ScratchDir;

// `rtrace ARGS TRACE` run beside a copy of the fixture `trace`, so messages name it as given.
test::CommandResult rtrace(const std::string& args, const std::string& trace) {
  const ScratchDir dir;
  const std::filesystem::path from = fixture("mpatrol/" + trace);
  std::filesystem::copy_file(from, dir / from.filename().string());
  return run_command("cd '" + dir.path().string() + "' && '" +
                     (test::build_dir() / "bin" / "rtrace").string() + "' " + args + " " +
                     from.filename().string());
}

const std::string kBasicPreamble =
    "version=2.0, arch=, timestamp=1970.1.1 00:00:00, process=, pid=0, backtrace depth=1, "
    "origin=mpatrol 1.5.1, \n"
    "## heap status information:\n"
    "##   heap bottom 0x555555589000\n"
    "##   heap top 0x5555555b0000\n"
    "##   lowest block 0x0\n"
    "##   highest block 0x0\n"
    "##   non-mapped space allocated from system 159744\n"
    "##   number of free chunks 0\n"
    "##   number of fastbin blocks 0\n"
    "##   number of mapped regions 10\n"
    "##   space in mapped regions 163840\n"
    "##   maximum total allocated space 0\n"
    "##   space available in freed fastbin blocks 0\n"
    "##   total allocated space 0\n"
    "##   total free space 0\n"
    "##   top-most, releasable (via malloc_trim) space 0\n"
    "<1> : memory (memory allocation in bytes)\n";

// Every event of mptrace's table for basic.trace, a realloc as a release and an allocation.
const std::string kBasicCalls =
    "1. alloc(100) = 0x55555558a250\n"
    "\t0x0 make_buffer() at basic.c:18\n\n"
    "2. alloc(16) = 0x55555558a4a0\n"
    "\t0x0 make_buffer() at basic.c:18\n\n"
    "3. alloc(40) = 0x55555558a4b0\n"
    "\t0x0 make_buffer() at basic.c:18\n\n"
    "4. alloc(24) = 0x55555558a4e0\n"
    "\t0x0 make_table() at basic.c:26\n\n"
    "5. alloc(12) = 0x55555558a500\n"
    "\t0x0 make_table() at basic.c:26\n\n"
    "6. realloc(0x55555558a4b0)\n\n"
    "7. realloc(200) = 0x55555558a510\n"
    "\t0x0 grow_buffer() at basic.c:31\n\n"
    "8. realloc(0x55555558a4a0)\n\n"
    "9. realloc(8) = 0x55555558a4a0\n"
    "\t0x0 grow_buffer() at basic.c:31\n\n"
    "10. free(0x55555558a4a0)\n"
    "\t0x0 release() at basic.c:36\n\n"
    "11. free(0x55555558a510)\n"
    "\t0x0 release() at basic.c:36\n\n"
    "12. free(0x55555558a500)\n"
    "\t0x0 release() at basic.c:36\n\n"
    "13. alloc(4096) = 0x55555558c470\n\n";

const std::string kBasicLeakSummary =
    "# Resource - memory (memory allocation in bytes):\n"
    "# 3 block(s) leaked with total size of 4220 bytes\n";

TEST(MpatrolPipeline, ProcessWritesTheTextProtocol) {
  const auto r = rtrace("process -i", "basic/basic.trace");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, kBasicPreamble + kBasicCalls);
}

TEST(MpatrolPipeline, LeaksAreMptracesUnfreedBlocks) {
  const auto r = rtrace("process -l -i", "basic/basic.trace");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "version=2.0, arch=, timestamp=1970.1.1 00:00:00, process=, pid=0, filter=leaks, "
            "backtrace depth=1, origin=mpatrol 1.5.1, \n" +
                kBasicPreamble.substr(kBasicPreamble.find('\n') + 1) +
                "1. alloc(100) = 0x55555558a250\n"
                "\t0x0 make_buffer() at basic.c:18\n\n"
                "4. alloc(24) = 0x55555558a4e0\n"
                "\t0x0 make_table() at basic.c:26\n\n"
                "13. alloc(4096) = 0x55555558c470\n\n" +
                kBasicLeakSummary);
}

// cxx.cpp leaks a Widget (make_widget, line 20), an int[7] (make_array, line 25) and two
// libstdc++/libc buffers without source: mptrace's "unfreed: 4 (76852 bytes)".
TEST(MpatrolPipeline, LeaksKeepCxxSignatures) {
  const auto r = rtrace("process -l -i", "cxx/cxx.trace");
  EXPECT_EQ(r.status, 0) << r.err;
  const std::string out = r.out.substr(r.out.find("<1> : memory"));
  EXPECT_EQ(out,
            "<1> : memory (memory allocation in bytes)\n"
            "1. alloc(72704) = 0x55555558a450\n\n"
            "3. alloc(24) = 0x555555589430\n"
            "\t0x0 Widget* make_widget(int) at cxx.cpp:20\n\n"
            "5. alloc(28) = 0x555555589480\n"
            "\t0x0 int* make_array(int) at cxx.cpp:25\n\n"
            "10. alloc(4096) = 0x55555559d050\n\n"
            "# Resource - memory (memory allocation in bytes):\n"
            "# 4 block(s) leaked with total size of 76852 bytes\n");
}

TEST(MpatrolPipeline, CompressGroupsBySourcePositionAndSorts) {
  const auto r = rtrace("process -l -c -s size -i", "basic/basic.trace");
  EXPECT_EQ(r.status, 0) << r.err;
  const std::string out = r.out.substr(r.out.find("<1> : memory"));
  EXPECT_EQ(out,
            "<1> : memory (memory allocation in bytes)\n"
            "13. alloc(4096) = 0x55555558c470\n"
            "# allocation summary: 1 block(s) with total size 4096\n\n"
            "1. alloc(100) = 0x55555558a250\n"
            "# allocation summary: 1 block(s) with total size 100\n"
            "\t0x0 make_buffer() at basic.c:18\n\n"
            "4. alloc(24) = 0x55555558a4e0\n"
            "# allocation summary: 1 block(s) with total size 24\n"
            "\t0x0 make_table() at basic.c:26\n\n" +
                kBasicLeakSummary);

  // Without -l: make_buffer's three allocations form one group, smallest group first.
  const auto all = rtrace("process -c -s count -i", "basic/basic.trace");
  EXPECT_EQ(all.status, 0) << all.err;
  EXPECT_NE(all.out.find("1. alloc(100) = 0x55555558a250\n"
                         "2. alloc(16) = 0x55555558a4a0\n"
                         "3. alloc(40) = 0x55555558a4b0\n"
                         "# allocation summary: 3 block(s) with total size 156\n"
                         "\t0x0 make_buffer() at basic.c:18\n"),
            std::string::npos)
      << all.out;
}

TEST(MpatrolPipeline, ReportShowsMptracesLeaksAndPeak) {
  const auto r = rtrace("report -i", "basic/basic.trace");
  EXPECT_EQ(r.status, 0) << r.err;
  // An mpatrol tracing file names neither the program nor its pid.
  EXPECT_TRUE(
      r.out.starts_with("rtrace report: (program not recorded), 13 calls\n"
                        "command line: not recorded\n"))
      << r.out;
  EXPECT_NE(r.out.find("  memory (memory allocation in bytes): 13 calls, 8 allocations of 4496 "
                       "bytes, 5 releases"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("PEAK CONSUMPTION\n"
                       "  memory: 4220 bytes alive after call 13\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("LEAKS\n"
                       "  memory: 3 block(s) leaked, 4220 bytes\n"
                       "    4096 bytes in 1 block(s) of memory from:\n"
                       "      (no backtrace)\n"
                       "    100 bytes in 1 block(s) of memory from:\n"
                       "      0x0 make_buffer() at basic.c:18\n"
                       "    24 bytes in 1 block(s) of memory from:\n"
                       "      0x0 make_table() at basic.c:26\n"),
            std::string::npos)
      << r.out;

  // threads.c: each of the 4 workers leaks malloc(64) at line 30; with mptrace's "unfreed: 9
  // (5440 bytes)" and "peak: 10 (5440 bytes)".
  const auto t = rtrace("report -i", "threads/threads.trace");
  EXPECT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("  memory: 5440 bytes alive after call"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("  memory: 9 block(s) leaked, 5440 bytes\n"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("    256 bytes in 4 block(s) of memory from:\n"
                       "      0x0 worker() at threads.c:30\n"),
            std::string::npos)
      << t.out;
}

// Damage behaves as in `rtrace mptrace`: everything before it, then the same message.
TEST(MpatrolPipeline, DamagedFilesBehaveAsThroughMptrace) {
  const std::string no_end = "edge/e01_no_end_marker.trace";
  const auto plain = rtrace("process -i", no_end);
  const auto mptrace = rtrace("mptrace", no_end);
  const std::string warning =
      "rtrace: e01_no_end_marker.trace:476: warning: no end marker: the trace stops here (the "
      "traced program did not end normally); everything before was read\n";
  EXPECT_EQ(mptrace.err, warning);
  EXPECT_EQ(plain.err, warning);
  EXPECT_EQ(plain.status, 0);
  EXPECT_EQ(plain.out, kBasicPreamble + kBasicCalls);  // e01 is basic without its last 4 bytes
  const auto strict = rtrace("process --strict -i", no_end);
  EXPECT_EQ(strict.err, warning);
  EXPECT_EQ(strict.status, 1);
  EXPECT_EQ(strict.out, plain.out);

  const std::string corrupt = "edge/e08_unknown_record_byte.trace";
  const std::string error =
      "rtrace: e08_unknown_record_byte.trace:293: unknown record type 0x5a 'Z' (not A, R, F, H, "
      "I or the end marker MTRC)\n";
  const auto bad = rtrace("process -i", corrupt);
  EXPECT_EQ(rtrace("mptrace", corrupt).err, error);
  EXPECT_EQ(bad.err, error);
  EXPECT_EQ(bad.status, 1);
  EXPECT_EQ(bad.out, kBasicPreamble);  // the H and I records before the damage

  const auto report = rtrace("report -i", corrupt);
  EXPECT_EQ(report.err, error);
  EXPECT_EQ(report.status, 1);
}

}  // namespace
}  // namespace rtrace
