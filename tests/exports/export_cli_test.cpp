// `rtrace export` as a user runs it, each output opened by the tool it is for: ms_print reads
// the massif file, dot renders the call graph, python's json and xml parsers load the Chrome
// trace and the flame graph; the figures must be those of `rtrace report`.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include "support/test_paths.h"

namespace rtrace {
namespace {

const std::string kLibc = "0x7f7569054305 in libc.so.6;0x7f756905424a in libc.so.6;";

std::string rtrace() {
  return (test::build_dir() / "bin" / "rtrace").string();
}
std::string quoted(const std::filesystem::path& path) {
  return "'" + path.string() + "'";
}
std::string fixture_arg(const std::string& relative) {
  return quoted(test::fixture("sp-rtrace/" + relative));
}
test::CommandResult export_of(const std::string& arguments) {
  return test::run_command(rtrace() + " export " + arguments);
}
// Runs the python `script` (no double quotes in it) with `file` as its argument.
test::CommandResult python_on(const std::string& script, const std::filesystem::path& file) {
  return test::run_command("python3 -c \"" + script + "\" " + quoted(file));
}
// The sum of the values of a folded file.
std::uint64_t folded_total(const std::string& folded) {
  std::uint64_t total = 0;
  std::size_t start = 0;
  while (start < folded.size()) {
    const std::size_t end = folded.find('\n', start);
    const std::string line = folded.substr(start, end - start);
    total += std::stoull(line.substr(line.rfind(' ') + 1));
    start = end + 1;
  }
  return total;
}
// A number the report prints after `label`.
std::uint64_t report_figure(const std::string& report, const std::string& pattern) {
  std::smatch match;
  EXPECT_TRUE(std::regex_search(report, match, std::regex(pattern))) << pattern << "\n" << report;
  return match.empty() ? 0 : std::stoull(match[1].str());
}

// Exact output on a small resolved trace of the original tools (memory.lcr.txt: leaks only,
// compressed, resolved): outermost first, equal stacks merged, sorted.
TEST(ExportCli, FoldedLeaksOfTheResolvedFixtureExactly) {
  RTRACE_NEEDS_FIXTURES();
  const test::CommandResult r =
      export_of("folded -w leaked -i " + fixture_arg("memory/memory.lcr.txt"));
  ASSERT_EQ(r.status, 0) << r.err;
  // The trace as an argument instead of -i: the same output.
  EXPECT_EQ(export_of("folded -w leaked " + fixture_arg("memory/memory.lcr.txt")).out, r.out);
  EXPECT_EQ(r.out,
            "_start;" + kLibc +
                "main;0x7f756907f65b in libc.so.6;0x7f756908950e in libc.so.6;0x7f75690ae63e in "
                "libc.so.6;0x7f75690af478 in libc.so.6;0x7f75690b00a0 in libc.so.6;0x7f75690a28cc "
                "in libc.so.6 4096\n"
                "_start;" +
                kLibc +
                "main;level1_a;level2_a;level3_a;leaf_malloc_leak 200\n"
                "_start;" +
                kLibc +
                "main;level1_b;level2_b;level3_b;leaf_calloc_leak 240\n"
                "_start;" +
                kLibc +
                "main;level1_c;level2_c;level3_c;leaf_memalign_leak 64\n"
                "_start;" +
                kLibc + "main;level1_c;level2_c;level3_c;leaf_realloc_leak 300\n");
}

// Each weight's total is the report's figure for the same trace.
TEST(ExportCli, FoldedTotalsAreTheReportsTotals) {
  RTRACE_NEEDS_FIXTURES();
  const std::string trace = fixture_arg("memory/memory.raw");
  const test::CommandResult report = test::run_command(rtrace() + " report --no-resolve " + trace);
  ASSERT_EQ(report.status, 0) << report.err;
  const auto fold = [&](const std::string& weight) {
    const test::CommandResult r = export_of("folded --no-resolve -w " + weight + " -i " + trace);
    EXPECT_EQ(r.status, 0) << r.err;
    return folded_total(r.out);
  };
  EXPECT_EQ(fold("allocated"), report_figure(report.out, R"(allocations of (\d+) bytes)"));
  EXPECT_EQ(fold("count"), report_figure(report.out, R"((\d+) allocations of)"));
  EXPECT_EQ(fold("leaked"),
            report_figure(report.out, R"(memory: \d+ block\(s\) leaked, (\d+) bytes)"));
  EXPECT_EQ(fold("peak"), report_figure(report.out, R"(memory: (\d+) bytes alive after call)"));
  EXPECT_EQ(fold("allocated"), 7554U);  // memory.raw: 25 allocations of 7554 bytes
}

TEST(ExportCli, MassifIsReadByMsPrintWithTheReportsPeak) {
  RTRACE_NEEDS_FIXTURES();
  const test::ScratchDir dir;
  const std::string trace = fixture_arg("memory/memory.raw");
  const test::CommandResult r =
      export_of("massif -i " + trace + " -o " + quoted(dir / "massif.out"));
  ASSERT_EQ(r.status, 0) << r.err;
  const test::CommandResult printed = test::run_command("ms_print " + quoted(dir / "massif.out"));
  ASSERT_EQ(printed.status, 0) << printed.err;
  const test::CommandResult report = test::run_command(rtrace() + " report " + trace);
  const std::uint64_t peak = report_figure(report.out, R"(memory: (\d+) bytes alive after call)");
  EXPECT_EQ(peak, 4900U);
  // The largest snapshot is the peak; every 10th snapshot is detailed, as massif does.
  std::uint64_t largest = 0;
  const std::regex row(R"(\n\s+\d+\s+[\d,]+\s+([\d,]+)\s+[\d,]+\s+0\s+0)");
  for (auto m = std::sregex_iterator(printed.out.begin(), printed.out.end(), row);
       m != std::sregex_iterator(); ++m) {
    std::string digits = (*m)[1].str();
    std::erase(digits, ',');
    largest = std::max<std::uint64_t>(largest, std::stoull(digits));
  }
  EXPECT_EQ(largest, peak) << printed.out;
  EXPECT_NE(printed.out.find("Detailed snapshots: [0, 10, 20, 30, 40, 43 (peak)]"),
            std::string::npos)
      << printed.out;
  EXPECT_NE(printed.out.find("100.00% (4,900B) (heap allocation functions)"), std::string::npos);
  EXPECT_NE(printed.out.find("->83.59% (4,096B) 0x7F75690A28CC: _IO_file_doallocate"),
            std::string::npos)
      << printed.out;
}

// Exact massif file of a small trace without a moving clock (the call numbers are the time):
// one snapshot per change, the first detailed (every 10th is), the last the peak with its tree,
// innermost frame first.
TEST(ExportCli, MassifOfTheResolvedFixtureExactly) {
  RTRACE_NEEDS_FIXTURES();
  const test::CommandResult r = export_of("massif -i " + fixture_arg("memory/memory.lcr.txt"));
  ASSERT_EQ(r.status, 0) << r.err;
  std::string expected = "desc: rtrace export massif (memory)\ncmd: ./memory\ntime_unit: i\n";
  const std::vector<std::pair<int, int>> snapshots{{19, 100}, {20, 200}, {21, 440},
                                                   {24, 740}, {25, 804}, {44, 4900}};
  for (std::size_t i = 0; i < snapshots.size(); ++i) {
    expected += fmt::format(
        "#-----------\nsnapshot={}\n#-----------\ntime={}\nmem_heap_B={}\nmem_heap_extra_B=0\n"
        "mem_stacks_B=0\nheap_tree={}\n",
        i, snapshots[i].first, snapshots[i].second,
        i == 0 ? "detailed" : (i + 1 < snapshots.size() ? "empty" : "peak"));
    if (i == 0) {
      expected +=
          "n1: 100 (heap allocation functions) malloc/new/new[], --alloc-fns, etc.\n"
          " n1: 100 0x4011AE: leaf_malloc_leak() (in /tmp/ref/progs/memory)\n"
          "  n1: 100 0x401303: level3_a() (in /tmp/ref/progs/memory)\n"
          "   n1: 100 0x401322: level2_a() (in /tmp/ref/progs/memory)\n"
          "    n1: 100 0x40132E: level1_a() (in /tmp/ref/progs/memory)\n"
          "     n1: 100 0x401400: main() (in /tmp/ref/progs/memory)\n"
          "      n1: 100 0x7F756905424A: ??? (in libc.so.6)\n"
          "       n1: 100 0x7F7569054305: ??? (in libc.so.6)\n"
          "        n0: 100 0x4010D1: _start() (in /tmp/ref/progs/memory)\n";
    }
  }
  expected +=
      "n5: 4900 (heap allocation functions) malloc/new/new[], --alloc-fns, etc.\n"
      " n1: 4096 0x7F75690A28CC: ??? (in libc.so.6)\n";
  EXPECT_EQ(r.out.substr(0, expected.size()), expected);
  EXPECT_NE(r.out.find("\n n1: 300 0x401209: leaf_realloc_leak() (in /tmp/ref/progs/memory)\n"
                       "  n1: 300 0x401371: level3_c() (in /tmp/ref/progs/memory)\n"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(r.out.ends_with("        n0: 64 0x4010D1: _start() (in /tmp/ref/progs/memory)\n"));
}

TEST(ExportCli, CallGraphIsRenderedByDot) {
  RTRACE_NEEDS_FIXTURES();
  const test::ScratchDir dir;
  const test::CommandResult r = export_of("callgraph -i " + fixture_arg("memory/memory.lcr.txt") +
                                          " -w leaked -o " + quoted(dir / "graph.dot"));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string dot = test::read_file(dir / "graph.dot");
  EXPECT_NE(dot.find("label=\"main\\n4.8 KiB (100.0%)\\nself 0 B\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("[label=\"300 B\", weight=300"), std::string::npos) << dot;
  const test::CommandResult svg = test::run_command("dot -Tsvg " + quoted(dir / "graph.dot") +
                                                    " -o " + quoted(dir / "graph.svg"));
  ASSERT_EQ(svg.status, 0) << svg.err;
  const test::CommandResult parsed = test::run_command(
      "python3 -c \"import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); "
      "print(r.tag); print(sum(1 for t in r.iter('{http://www.w3.org/2000/svg}text') if t.text == "
      "'leaf_realloc_leak'))\" " +
      quoted(dir / "graph.svg"));
  EXPECT_EQ(parsed.out, "{http://www.w3.org/2000/svg}svg\n1\n") << parsed.err;
}

TEST(ExportCli, ChromeTraceLoadsAsJsonWithEventsAndCounters) {
  RTRACE_NEEDS_FIXTURES();
  const test::ScratchDir dir;
  const test::CommandResult r =
      export_of("chrome --no-resolve -i " + fixture_arg("memory/memory.raw") + " -o " +
                quoted(dir / "trace.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  // Instant events per call (on pid 778, its main thread), the live-bytes counter: its last
  // value is what leaked, its largest the peak.
  const test::CommandResult loaded = test::run_command(
      "python3 -c \"import sys, json; d = json.load(open(sys.argv[1])); e = d['traceEvents']; "
      "i = [x for x in e if x['ph'] == 'i']; c = [x['args']['live'] for x in e if x['ph'] == 'C' "
      "and x['name'] == 'live memory']; "
      "print(len(i), i[0]['name'], i[0]['pid'], i[0]['tid'], i[0]['args']['size'], "
      "sum(1 for x in i if x['args']['kind'] == 'alloc'), max(c), c[-1], "
      "d['otherData']['calls_left_out'])\" " +
      quoted(dir / "trace.json"));
  ASSERT_EQ(loaded.status, 0) << loaded.err;
  EXPECT_EQ(loaded.out, "44 malloc 778 778 16 25 4900 4900 0\n");
}

// mpatrol records pthread_self() values as thread ids (about 2^47): the Chrome trace's tids are
// those values, whole (mptrace --verbose --source prints them from the file), not cut to 32 bits.
// (A call without a thread id has its pid as tid.)
TEST(ExportCli, ChromeTraceKeepsThreadIdsWiderThan32Bits) {
  RTRACE_NEEDS_FIXTURES();
  const std::string trace = quoted(test::fixture("mpatrol/threads/threads.trace"));
  const test::ScratchDir dir;
  const test::CommandResult r = export_of("chrome -i " + trace + " -o " + quoted(dir / "t.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  const test::CommandResult tids = python_on(
      "import sys, json; e = json.load(open(sys.argv[1]))['traceEvents']; "
      "t = {x['tid'] for x in e if x['ph'] == 'i' and x['tid'] != x['pid']}; "
      "print(' '.join(str(n) for n in sorted(t)))",
      dir / "t.json");
  ASSERT_EQ(tids.status, 0) << tids.err;
  const test::CommandResult verbose =
      test::run_command(rtrace() + " mptrace --verbose --source " + trace);
  ASSERT_EQ(verbose.status, 0) << verbose.err;
  std::set<std::uint64_t> threads;
  const std::regex thread_word(R"( thread (\d+))");
  for (auto m = std::sregex_iterator(verbose.out.begin(), verbose.out.end(), thread_word);
       m != std::sregex_iterator(); ++m) {
    threads.insert(std::stoull((*m)[1].str()));
  }
  ASSERT_EQ(threads.size(), 5U);  // main and four workers
  EXPECT_GT(*threads.begin(), std::uint64_t{UINT32_MAX});
  EXPECT_EQ(tids.out, fmt::format("{}\n", fmt::join(threads, " ")));
}

TEST(ExportCli, FlameGraphIsValidSvgWithTheFrames) {
  RTRACE_NEEDS_FIXTURES();
  const test::ScratchDir dir;
  const test::CommandResult r =
      export_of("flamegraph -w leaked -i " + fixture_arg("memory/memory.lcr.txt") + " -o " +
                quoted(dir / "flame.svg"));
  ASSERT_EQ(r.status, 0) << r.err;
  const test::CommandResult parsed = test::run_command(
      "python3 -c \"import sys, xml.etree.ElementTree as E; n = '{http://www.w3.org/2000/svg}'; "
      "r = E.parse(sys.argv[1]).getroot(); "
      "[print(g.find(n + 'title').text) for g in r.iter(n + 'g') if g.get('class') == 'frame' "
      "and g.get('data-n') in ('all', 'main', 'level3_c', 'leaf_realloc_leak')]; "
      "print(len(r.find(n + 'script').text) > 1000)\" " +
      quoted(dir / "flame.svg"));
  ASSERT_EQ(parsed.status, 0) << parsed.err;
  EXPECT_EQ(parsed.out,
            "all (4.8 KiB, 100.00%)\nmain (4.8 KiB, 100.00%)\nlevel3_c (364 B, 7.43%)\n"
            "leaf_realloc_leak (300 B, 6.12%)\nTrue\n");
}

// A trace of two resource types (fd.raw: file descriptors and FILE pointers): Chrome gets a
// counter track each, ending at what the report says leaked; --type picks one for the others.
TEST(ExportCli, EveryResourceTypeHasItsCounterTrack) {
  RTRACE_NEEDS_FIXTURES();
  const std::string trace = fixture_arg("fd/fd.raw");
  const test::CommandResult report = test::run_command(rtrace() + " report --no-resolve " + trace);
  // Descriptors are counted, not weighed (size 1 each): the report gives counts.
  const std::uint64_t fd_leaked = report_figure(report.out, R"(fd: (\d+) descriptor\(s\) leaked)");
  const std::uint64_t fp_leaked = report_figure(report.out, R"(fp: (\d+) stream\(s\) leaked)");
  const std::uint64_t fd_peak =
      report_figure(report.out, R"(fd: (\d+) descriptor\(s\) alive after call)");
  const test::ScratchDir dir;
  ASSERT_EQ(export_of("chrome --no-resolve -i " + trace + " -o " + quoted(dir / "t.json")).status,
            0);
  const test::CommandResult loaded = test::run_command(
      "python3 -c \"import sys, json; e = json.load(open(sys.argv[1]))['traceEvents']; "
      "t = lambda n: [x['args']['live'] for x in e if x['name'] == n]; "
      "print(t('live fd')[-1], t('live fp')[-1], max(t('live fd')), "
      "sum(1 for x in e if x['ph'] == 'i' and x['cat'] == 'fp'))\" " +
      quoted(dir / "t.json"));
  ASSERT_EQ(loaded.status, 0) << loaded.err;
  EXPECT_EQ(loaded.out, fmt::format("{} {} {} 3\n", fd_leaked, fp_leaked, fd_peak));
  const test::CommandResult fp = export_of("folded --no-resolve -w count --type fp -i " + trace);
  ASSERT_EQ(fp.status, 0) << fp.err;
  EXPECT_EQ(folded_total(fp.out), 2U);  // fp: 2 allocations
  const test::CommandResult fd = export_of("folded --no-resolve -w count -i " + trace);
  EXPECT_EQ(folded_total(fd.out), 9U);  // the first type, fd: 9 allocations
}

// The whole path on a program of ours: record it, export its leaks resolved to source names.
TEST(ExportCli, RecordedProgramExportsItsLeaksByName) {
  const test::ScratchDir dir;
  const std::string leaky = (test::build_dir() / "examples" / "leaky").string();
  const auto recorded = test::run_command(rtrace() + " record -q -s -e memory -o " +
                                          quoted(dir.path()) + " -x " + leaky);
  ASSERT_EQ(recorded.status, 0) << recorded.err;
  const std::string trace = quoted(std::filesystem::directory_iterator(dir.path())->path());
  const test::CommandResult folded = export_of("folded -w leaked -i " + trace);
  ASSERT_EQ(folded.status, 0) << folded.err;
  // leaky.c leaks 9500 bytes (see rtrace report's test), 28 of them in document_open.
  EXPECT_EQ(folded_total(folded.out), 9500U) << folded.out;
  EXPECT_TRUE(std::regex_search(folded.out, std::regex(R"(;main;document_open;[^\n]* 28\n)")))
      << folded.out;
  const test::CommandResult massif =
      export_of("massif -i " + trace + " -o " + quoted(dir.path() / "m.out"));
  ASSERT_EQ(massif.status, 0) << massif.err;
  const test::CommandResult printed = test::run_command("ms_print " + quoted(dir.path() / "m.out"));
  EXPECT_EQ(printed.status, 0) << printed.err;
  EXPECT_NE(printed.out.find("main() (leaky.c:"), std::string::npos) << printed.out;
}

TEST(ExportCli, BadOptionsAndUnknownTypes) {
  RTRACE_NEEDS_FIXTURES();
  const test::ScratchDir dir;
  EXPECT_EQ(export_of("folded -w heaviest -i " + fixture_arg("fd/fd.raw")).status, 2);
  EXPECT_EQ(export_of("pdf -i " + fixture_arg("fd/fd.raw")).status, 2);
  // One export's options given to another, or out of their range.
  const test::CommandResult misplaced =
      export_of("folded --max-events 5 -i " + fixture_arg("fd/fd.raw"));
  EXPECT_EQ(misplaced.status, 2);
  EXPECT_EQ(misplaced.err,
            "rtrace: --max-events is the chrome export's, not the folded export's\n");
  EXPECT_EQ(export_of("chrome --threshold 5 -i " + fixture_arg("fd/fd.raw")).status, 2);
  EXPECT_EQ(export_of("massif --max-snapshots 5 -i " + fixture_arg("fd/fd.raw")).status, 2);
  EXPECT_EQ(export_of("massif --threshold 101 -i " + fixture_arg("fd/fd.raw")).status, 2);
  const test::CommandResult r = export_of("folded --type gpu -i " + fixture_arg("fd/fd.raw") +
                                          " -o " + quoted(dir / "out.folded"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "rtrace: the trace has no resource type 'gpu'\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "out.folded"));  // nothing half-written
}

// Damaged input: the export of what came before the damage is written, then the error.
TEST(ExportCli, DamagedInputExportsWhatCameBefore) {
  RTRACE_NEEDS_FIXTURES();
  const test::ScratchDir dir;
  std::string text = test::read_file(test::fixture("sp-rtrace/memory/memory.txt"));
  text.insert(text.find("\n30. ") + 1, "30. malloc(oops) = 0x10\n");
  test::write_file(dir / "damaged.txt", text);
  const test::CommandResult r =
      export_of("folded --no-resolve -w count -i " + quoted(dir / "damaged.txt"));
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(r.err.starts_with("rtrace: " + (dir / "damaged.txt").string() + ":")) << r.err;
  EXPECT_EQ(folded_total(r.out), 17U);  // the allocations among calls 1-29
}

}  // namespace
}  // namespace rtrace
