// `rtrace report` as a heap profiler, on a program of ours recorded by the real `rtrace record`:
// allocation sites with their caller trees, wrappers, inlined frames, short templates,
// mismatched releases; --diff across address randomisation; directories and several traces.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <regex>
#include <string>

#include "support/test_paths.h"

namespace rtrace {
namespace {

namespace fs = std::filesystem;

std::string rtrace_command(const std::string& arguments) {
  return "'" + (test::build_dir() / "bin" / "rtrace").string() + "' " + arguments;
}

std::string quoted(const fs::path& path) {
  return "'" + path.string() + "'";
}

// Records the sites program with `leaks` leaked blocks into `directory`; returns the trace.
fs::path record_sites(const fs::path& directory, int leaks) {
  const auto recorded = test::run_command(
      rtrace_command("record -q -s -e memory -o " + quoted(directory) + " -x '" +
                     std::string(REPORT_SITES_PROGRAM) + "' " + std::to_string(leaks)));
  EXPECT_EQ(recorded.status, 0) << recorded.err;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory)) {
    if (entry.path().extension() == ".rtrace") {
      return entry.path();
    }
  }
  ADD_FAILURE() << "no trace in " << directory;
  return {};
}

// One number of the report's text, found by a pattern with one group.
std::uint64_t number(const std::string& text, const std::string& pattern) {
  std::smatch match;
  EXPECT_TRUE(std::regex_search(text, match, std::regex(pattern))) << pattern << "\n" << text;
  return match.empty() ? 0 : std::stoull(match[1].str());
}

std::string percent(std::uint64_t part, std::uint64_t whole) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%",
                100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return text;
}

class ReportSites : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = new test::ScratchDir();
    fs::create_directory(scratch_->path() / "run");
    trace_ = new fs::path(record_sites(scratch_->path() / "run", 3));
  }
  static void TearDownTestSuite() {
    delete trace_;
    delete scratch_;
  }
  static test::CommandResult report(const std::string& options) {
    return test::run_command(rtrace_command("report " + quoted(*trace_) + " " + options));
  }

  static test::ScratchDir* scratch_;
  static fs::path* trace_;
};
test::ScratchDir* ReportSites::scratch_ = nullptr;
fs::path* ReportSites::trace_ = nullptr;

TEST_F(ReportSites, WrappedSiteWithItsTwoCallerPathsAndPercentages) {
  const auto r = report("-n 10 --wrapper xmalloc");
  ASSERT_EQ(r.status, 0) << r.err;
  // The whole trace's figures (the C++ runtime allocates too), for the percentages.
  const std::uint64_t allocated =
      number(r.out, R"(memory allocation in bytes\): \d+ calls, \d+ allocations of (\d+) bytes)");
  const std::uint64_t peak = number(r.out, R"(  memory: (\d+) bytes alive after call)");
  EXPECT_NE(
      r.out.find("    make_record(unsigned long) at sites_program.cpp:17\n"
                 "      2 allocation(s), 3.9 KiB (" +
                 percent(4000, allocated) + ") allocated, peak 3.9 KiB (" + percent(4000, peak) +
                 "), leaked 0 B (0.0%) in 0 block(s)\n"
                 "        main() at sites_program.cpp:43 (1 allocation(s), 2.9 KiB allocated, "
                 "peak 2.9 KiB, leaked 0 B in 0 block(s))\n"
                 "          __libc_start_call_main() at libc_start_call_main.h:58\n"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("        main() at sites_program.cpp:42 (1 allocation(s), 1000 B allocated, "
                       "peak 1000 B, leaked 0 B in 0 block(s))\n"),
            std::string::npos);
  // The leak: three blocks of 100 bytes, every one of them still there at the peak.
  const std::uint64_t leaked = number(r.out, R"(  memory: \d+ block\(s\) leaked, (\d+) bytes)");
  EXPECT_NE(r.out.find("    leak_blocks(int) at sites_program.cpp:35\n"
                       "      3 allocation(s), 300 B (" +
                       percent(300, allocated) + ") allocated, peak 300 B (" + percent(300, peak) +
                       "), leaked 300 B (" + percent(300, leaked) +
                       ") in 3 block(s)\n"
                       "        main() at sites_program.cpp:41\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("    xmalloc() at"), std::string::npos) << "xmalloc is a wrapper";
}

// The lines of `text` beneath the line that starts at `start`: those indented deeper than four.
std::string site_block(const std::string& text, std::size_t start) {
  std::size_t end = text.find('\n', start) + 1;
  while (end < text.size() && text.compare(end, 6, "      ") == 0) {
    end = text.find('\n', end) + 1;
  }
  return text.substr(start, end - start);
}

TEST_F(ReportSites, CallersUnderTheShareAreLeftOutAndCounted) {
  // make_record's callers: main():43 with 1 of its 2 allocations and 3000 of its 4000 bytes,
  // main():42 with the other (half the allocations, a quarter of the bytes and of the peak).
  const auto r = report("-n 10 --wrapper xmalloc --callers-min-share 0.6");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::size_t site = r.out.find("    make_record(unsigned long) at sites_program.cpp:17\n");
  ASSERT_NE(site, std::string::npos) << r.out;
  const std::string block = site_block(r.out, site);
  EXPECT_NE(block.find("\n        main() at sites_program.cpp:43 (1 allocation(s), 2.9 KiB "
                       "allocated, peak 2.9 KiB, leaked 0 B in 0 block(s))\n"
                       "          __libc_start_call_main() at libc_start_call_main.h:58\n"),
            std::string::npos)
      << block;
  EXPECT_EQ(block.find("sites_program.cpp:42"), std::string::npos) << block;
  EXPECT_TRUE(block.ends_with("\n        ... 1 more caller(s)\n")) << block;

  // 0 shows every caller; so does the default share on a trace this small.
  const auto all = report("-n 10 --wrapper xmalloc --callers-min-share 0");
  ASSERT_EQ(all.status, 0) << all.err;
  EXPECT_NE(all.out.find("        main() at sites_program.cpp:42 (1 allocation(s)"),
            std::string::npos);
  EXPECT_EQ(report("-n 10 --wrapper xmalloc").out, all.out);
  EXPECT_EQ(report("--callers-min-share 2").status, 2);
}

TEST_F(ReportSites, HtmlFlameGraphLeavesOutSmallFramesAndSaysSo) {
  const fs::path page = scratch_->path() / "pruned.html";
  const auto pruned = report("--html " + quoted(page) + " --html-min-share 0.9");
  ASSERT_EQ(pruned.status, 0) << pruned.err;
  const std::string text = test::read_file(page);
  EXPECT_TRUE(
      std::regex_search(text, std::regex(R"("pruned":\{"nodes":[1-9]\d*,"min_share":0\.9\})")))
      << text.substr(0, 4000);
  const auto whole = report("--html " + quoted(page) + " --html-min-share 0");
  ASSERT_EQ(whole.status, 0) << whole.err;
  EXPECT_EQ(test::read_file(page).find("\"pruned\""), std::string::npos);
}

TEST_F(ReportSites, WithoutTheWrapperOptionTheWrapperIsTheSite) {
  const auto r = report("-n 10");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("    xmalloc() at sites_program.cpp:9\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("        make_record(unsigned long) at sites_program.cpp:17\n"
                       "          main() at sites_program.cpp:43 (1 allocation(s)"),
            std::string::npos)
      << r.out;
}

TEST_F(ReportSites, InlinedFramesAndShortTemplates) {
  const auto r = report("-n 10 --short-templates");
  ASSERT_EQ(r.status, 0) << r.err;
  // inlined_alloc() was inlined into via_inline(): the site is the inlined function.
  EXPECT_NE(r.out.find("    inlined_alloc() at sites_program.cpp:26 [inlined]\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(" in 0 block(s)\n        via_inline() at sites_program.cpp:30\n"
                       "        main() at sites_program.cpp:52\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    Pool<>::grab() at sites_program.cpp:22\n"), std::string::npos);
  EXPECT_EQ(r.out.find("std::pair"), std::string::npos);
  // Short by default (--short-templates is still accepted, and changes nothing).
  const auto plain = report("-n 10");
  EXPECT_EQ(plain.out, r.out);
  const auto full = report("-n 10 --full-templates");
  EXPECT_NE(full.out.find("    Pool<std::pair<int, long> >::grab() at sites_program.cpp:22\n"),
            std::string::npos)
      << full.out;
}

TEST_F(ReportSites, MismatchedReleasesCommandLineAndHeap) {
  const auto r = report("-n 10");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::regex frame(" 0x[0-9a-f]+ ");
  const std::string out = std::regex_replace(r.out, frame, " ADDR ");
  EXPECT_NE(out.find("MISMATCHED RELEASES (released by another allocator family)\n"
                     "  1 block(s) of 64 B from operator new[](unsigned long) released by free, "
                     "allocated from:\n"
                     "      ADDR Pool<>::grab() at sites_program.cpp:22\n"
                     "      ADDR main() at sites_program.cpp:46\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("  1 block(s) of 4 B from operator new(unsigned long) released by operator "
                     "delete[](void*), allocated from:\n"
                     "      ADDR main() at sites_program.cpp:48\n"),
            std::string::npos);
  EXPECT_NE(out.find("  1 block(s) of 4 B from malloc released by operator delete(void*, unsigned "
                     "long), allocated from:\n"
                     "      ADDR main() at sites_program.cpp:50\n"),
            std::string::npos);
  // rtrace's tracer records the whole command line, how the trace ended and the peak RSS.
  EXPECT_NE(r.out.find("\ncommand line: " + std::string(REPORT_SITES_PROGRAM) +
                       " 3\n"
                       "trace ended by: exit\n"
                       "peak RSS: "),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(std::regex_search(
      r.out,
      std::regex("\npeak RSS: [0-9.]+ ([KMG]i)?B \\(RSS at the end: [0-9.]+ ([KMG]i)?B\\)\n")))
      << r.out;
  // The tracer sends mallinfo2 when the program exits.
  EXPECT_TRUE(std::regex_search(
      r.out,
      std::regex("\nheap when tracing stopped: [0-9.]+ ([KMG]i)?B in use, [0-9.]+ ([KMG]i)?B free, "
                 "arena [0-9.]+ ([KMG]i)?B, [0-9.]+ ([KMG]i)?B in \\d+ mmapped region\\(s\\)\n")))
      << r.out;
}

TEST_F(ReportSites, JsonSaysWhatTheTextSays) {
  const auto r = report("-n 10 --json --wrapper xmalloc");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(
      r.out.find(R"j({"type": "memory", "frame": "make_record(unsigned long) at )j"
                 R"j(sites_program.cpp:17", "inlined": false, "allocations": 2, )j"
                 R"j("bytes_allocated": 4000, "peak_bytes": 4000, "leaked_blocks": 0, )j"
                 R"j("leaked_bytes": 0, "callers": [{"frame": "main() at sites_program.cpp:43", )j"
                 R"j("inlined": false, "allocations": 1, "bytes_allocated": 3000, )j"),
      std::string::npos)
      << r.out;
  EXPECT_NE(
      r.out.find(R"j({"allocated_by": "operator new[](unsigned long)", "released_by": "free", )j"
                 R"j("blocks": 1, "bytes": 64, "backtrace": [")j"),
      std::string::npos);
  EXPECT_NE(r.out.find("\n  \"heap\": {\"arena\": "), std::string::npos);
}

// Two runs of one PIE program load it at different addresses; --diff matches the backtraces by
// module and offset (binary traces), or by function and line (resolved text without maps), and
// finds the three more leaked blocks of the second run.
TEST(ReportDiffAcrossRuns, GrowthPerSiteDespiteAddressRandomisation) {
  const test::ScratchDir dir;
  fs::create_directory(dir / "old");
  fs::create_directory(dir / "new");
  const fs::path old_trace = record_sites(dir / "old", 2);
  const fs::path new_trace = record_sites(dir / "new", 5);

  // Where the program was loaded in each run (its first memory map line).
  const auto load_address = [](const fs::path& trace) {
    const auto text = test::run_command(rtrace_command("process -i " + quoted(trace)));
    std::smatch match;
    std::regex_search(text.out, match, std::regex("report_sites_program => (0x[0-9a-f]+)"));
    return match.empty() ? std::string() : match[1].str();
  };
  const std::string old_base = load_address(old_trace);
  ASSERT_FALSE(old_base.empty());
  if (test::read_file("/proc/sys/kernel/randomize_va_space").starts_with("0")) {
    std::cerr << "address randomisation is off on this system: the runs share addresses\n";
  } else {
    EXPECT_NE(old_base, load_address(new_trace)) << "randomisation is on: the bases must differ";
  }

  const std::string growth =
      "GROWTH SINCE THE BASELINE\n"
      "  memory: +3 allocations, +300 bytes allocated, +3 leaked blocks, +300 leaked bytes, +300 "
      "peak bytes\n"
      "    +300 leaked bytes, +300 bytes allocated in +3 allocations (memory) from:\n";
  // Binary traces, resolved: frames keyed by module + offset.
  auto r = test::run_command(
      rtrace_command("report --diff " + quoted(dir / "old") + " " + quoted(dir / "new")));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(growth), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" leak_blocks(int) at sites_program.cpp:35\n"), std::string::npos);
  EXPECT_TRUE(r.out.starts_with("rtrace report: baseline " + (dir / "old").string() +
                                ": the newest of 1 trace(s): " + old_trace.string() + "\n"))
      << r.out;
  // Nothing else grew: one site only.
  EXPECT_EQ(r.out.substr(r.out.find(growth) + growth.size()).find(" allocations (memory) from:"),
            std::string::npos)
      << r.out;

  // Raw addresses only: still module + offset.
  r = test::run_command(
      rtrace_command("report --no-resolve --diff " + quoted(old_trace) + " " + quoted(new_trace)));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(growth + "      0x"), std::string::npos) << r.out;

  // Resolved text traces without their memory maps: function, file and line.
  for (const auto& [trace, text] :
       {std::pair(old_trace, dir / "old.txt"), std::pair(new_trace, dir / "new.txt")}) {
    const auto converted =
        test::run_command(rtrace_command("process -i " + quoted(trace)) + " | " +
                          rtrace_command("resolve") + " | grep -v '^: ' > " + quoted(text));
    ASSERT_EQ(converted.status, 0) << converted.err;
  }
  r = test::run_command(
      rtrace_command("report --diff " + quoted(dir / "old.txt") + " " + quoted(dir / "new.txt")));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::size_t site =
      r.out.find("    +300 leaked bytes, +300 bytes allocated in +3 allocations (memory) from:\n");
  ASSERT_NE(site, std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" leak_blocks(int) at sites_program.cpp:35\n", site), std::string::npos);
  // The wrapper's calls did not change between the runs: no growth there.
  EXPECT_EQ(r.out.find("make_record", r.out.find("GROWTH")), std::string::npos) << r.out;
}

// ---- which traces: directories, several traces, standard input -------------------------------

TEST(ReportInputs, DirectoryEveryTraceOrTheNewest) {
  const test::ScratchDir dir;
  fs::create_directory(dir / "traces");
  record_sites(dir / "traces", 1);
  fs::create_directory(dir / "second");
  const fs::path newer = record_sites(dir / "second", 4);
  // Two traces in one directory, the second one newer, and a file that is not a trace.
  const fs::path first = *fs::directory_iterator(dir / "traces");
  const fs::path moved = dir / "traces" / "zz-newer.rtrace";
  fs::rename(newer, moved);
  fs::last_write_time(first, fs::last_write_time(moved) - std::chrono::hours(1));
  test::write_file(dir / "traces" / "notes.txt", "not a trace\n");

  auto r = test::run_command(rtrace_command("report -n 1 " + quoted(dir / "traces")));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("rtrace report: " + (dir / "traces").string() +
                                ": every trace, 2 of them, by name\n\n== " + first.string() +
                                " (1 of 2) ==\nrtrace report: "))
      << r.out;
  EXPECT_NE(r.out.find("\n== " + moved.string() + " (2 of 2) ==\nrtrace report: "),
            std::string::npos);
  EXPECT_EQ(r.err,
            "rtrace: " + (dir / "traces" / "notes.txt").string() + ": not a trace, skipped\n");

  r = test::run_command(rtrace_command("report -n 3 --newest -q " + quoted(dir / "traces")));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("rtrace report: " + (dir / "traces").string() +
                                ": the newest of 2 trace(s): " + moved.string() +
                                "\n\n== " + moved.string() + " (1 of 1) ==\n"))
      << r.out;
  // The newest trace is the run with four leaked blocks.
  EXPECT_NE(
      r.out.find("    leak_blocks(int) at sites_program.cpp:35\n      4 allocation(s), 400 B ("),
      std::string::npos)
      << r.out;

  r = test::run_command(rtrace_command("report -n 1 --json -q " + quoted(dir / "traces")));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(
      r.out.starts_with("{\"inputs\": [\"" + (dir / "traces").string() +
                        ": every trace, 2 of them, by name\"],\n\"traces\": [\n{\"trace\": \"" +
                        first.string() + "\", \"report\": {\n  \"process\": "))
      << r.out;
  EXPECT_TRUE(r.out.ends_with("}}\n]}\n")) << r.out;

  fs::create_directory(dir / "empty");
  r = test::run_command(rtrace_command("report " + quoted(dir / "empty")));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "rtrace: " + (dir / "empty").string() + ": no trace in this directory\n");
}

TEST(ReportInputs, SeveralTracesEachReportedAndDiffTakesOne) {
  const test::ScratchDir dir;
  const fs::path trace = record_sites(dir.path(), 2);
  auto r = test::run_command(rtrace_command("report -n 1 " + quoted(trace) + " " + quoted(trace)));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("\n== " + trace.string() + " (1 of 2) ==\nrtrace report: "))
      << r.out;
  EXPECT_NE(r.out.find("\n== " + trace.string() + " (2 of 2) ==\nrtrace report: "),
            std::string::npos);

  r = test::run_command(
      rtrace_command("report --diff " + quoted(trace) + " " + quoted(trace) + " " + quoted(trace)));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(
      r.err,
      "rtrace: report: --diff compares one trace with its baseline, and 2 traces were given\n");
  EXPECT_EQ(r.out, "");
}

TEST(ReportInputs, StandardInputOnlyWhenItIsNotATerminal) {
  const int terminal = ::posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(terminal, 0);
  ASSERT_EQ(::grantpt(terminal), 0);
  ASSERT_EQ(::unlockpt(terminal), 0);
  const std::string pts = ::ptsname(terminal);
  auto r = test::run_command(rtrace_command("report < " + pts));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "rtrace: report: no trace to read: name a trace or a directory of traces, or pipe a "
            "trace into standard input (rtrace report --help)\n");
  EXPECT_EQ(r.out, "");
  r = test::run_command(rtrace_command("report - < " + pts));
  EXPECT_EQ(r.status, 2);
  ::close(terminal);

  // A pipe is read.
  const test::ScratchDir dir;
  const fs::path trace = record_sites(dir.path(), 2);
  r = test::run_command("cat " + quoted(trace) + " | " + rtrace_command("report -n 1"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("  memory: "), std::string::npos);
  EXPECT_TRUE(r.out.starts_with("rtrace report: ")) << r.out;
}

}  // namespace
}  // namespace rtrace
