// StackTrack files through the whole pipeline, as a user runs it: `rtrace process` (one text
// trace per process, to standard output or -o DIR) and `rtrace report` (the CHECKPOINTS
// section), on the fixture and on a generated file with two processes and several threads.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "formats/sprtrace_text/text_reader.h"
#include "formats/sprtrace_text/text_writer.h"
#include "formats/stacktrack/trace_reader.h"
#include "io/output_stream.h"
#include "rtrace/version.h"
#include "stacktrack_test_support.h"

namespace rtrace::stacktrack::test {
namespace {

using rtrace::test::fixture;
using rtrace::test::read_file;
using rtrace::test::run_command;
using rtrace::test::ScratchDir;
using rtrace::test::write_file;

constexpr std::uint64_t kA = 0x0a01;  // 2561
constexpr std::uint64_t kB = 0x0b02;  // 2818

std::string header(std::uint64_t pid) {
  return "version=2.0, arch=, timestamp=2005.3.25 13:21:05, process=, pid=" + std::to_string(pid) +
         ", backtrace depth=1, origin=" + kOrigin +
         ", \n<1> : checkpoint (StackTrack checkpoint hits)\n";
}

// A counts in microseconds from 5 s, B in milliseconds from 0. A's `loop` is hit by thread 1
// (intervals 200, 100, 300 us) and thread 2 (1000 us); its `io` hit carries INFO text; B's
// `serve` is hit twice by thread 3, one second apart. The processes' entries interleave.
std::string two_processes() {
  RawEncoder e(default_layout(), Order::Little);
  e.process_start(kA, 1000000, 5000000);
  e.process_start(kB, 1000, 0, /*prologue=*/false);
  e.entry("FLOC", kA, 1, {{"filenum", 1}}, true);
  e.info(kA, 1, "src/a.cpp");
  e.entry("SLOC", kA, 1, {{"scopeIndex", 1}, {"style", 3}, {"linenum", 10}, {"filenum", 1}}, true);
  e.info(kA, 1, "loop");
  e.entry("HIT", kA, 1, {{"when", 5000100}, {"scopeIndex", 1}, {"tid", 1}});
  e.entry("FLOC", kB, 1, {{"filenum", 1}}, true);
  e.info(kB, 1, "b.cpp");
  e.entry("SLOC", kB, 1, {{"scopeIndex", 1}, {"style", 3}, {"linenum", 5}, {"filenum", 1}}, true);
  e.info(kB, 1, "serve");
  e.entry("HIT", kB, 1, {{"when", 1500}, {"scopeIndex", 1}, {"tid", 3}});
  e.entry("HIT", kA, 2, {{"when", 5000300}, {"scopeIndex", 1}, {"tid", 1}});
  e.entry("HIT", kA, 3, {{"when", 5000400}, {"scopeIndex", 1}, {"tid", 1}});
  e.entry("HIT", kA, 4, {{"when", 5000500}, {"scopeIndex", 1}, {"tid", 2}});
  e.entry("SLOC", kA, 5, {{"scopeIndex", 2}, {"style", 6}, {"linenum", 12}, {"filenum", 1}}, true);
  e.info(kA, 5, "io");
  e.entry("HIT", kA, 5, {{"when", 5000600}, {"scopeIndex", 2}, {"tid", 1}}, true);
  e.entry("HIT", kB, 2, {{"when", 2500}, {"scopeIndex", 1}, {"tid", 3}});
  e.info(kA, 5, "bytes=42");
  e.entry("HIT", kA, 6, {{"when", 5000700}, {"scopeIndex", 1}, {"tid", 1}});
  e.entry("HIT", kA, 7, {{"when", 5001500}, {"scopeIndex", 1}, {"tid", 2}});
  return e.bytes();
}

const std::string kTraceA = header(kA) + R"(1. loop({call})
	0x0 loop() at src/a.cpp:10

2. loop({call})
	0x0 loop() at src/a.cpp:10

3. loop({call})
	0x0 loop() at src/a.cpp:10

4. loop({call})
	0x0 loop() at src/a.cpp:10

5. io({call})
	$info = bytes=42
	0x0 io() at src/a.cpp:12

6. loop({call})
	0x0 loop() at src/a.cpp:10

7. [00:00:00.001] loop({call})
	0x0 loop() at src/a.cpp:10

)";

const std::string kTraceB = header(kB) + R"(1. [00:00:01.500] serve({call})
	0x0 serve() at b.cpp:5

2. [00:00:02.500] serve({call})
	0x0 serve() at b.cpp:5

)";

// Every process and every call's pid and kind, as one line each.
class ProcessesSink final : public TraceSink {
 public:
  void process(const ProcessInfo& p) override {
    processes.push_back(fmt::format("process {} start={} depth={}", p.pid, p.start.seconds,
                                    p.backtrace_depth.value_or(0)));
  }
  void call(const CallRecord& r) override {
    calls.push_back(fmt::format("call #{} pid={} {} kind={}", r.call.index, r.call.pid, r.function,
                                static_cast<int>(r.call.kind)));
  }
  void finish() override {}
  // Each in the order received (a writer may put process records before calls).
  std::vector<std::string> processes;
  std::vector<std::string> calls;
};

std::unique_ptr<InputStream> memory_input(std::string bytes) {
  return open_input(std::make_unique<MemorySource>(std::move(bytes)), "trace");
}

// Written by one text writer (no per-process split), a stream of two processes names both, and
// every call keeps its pid and its kind when the text is read back.
TEST(StackTrackText, OneTextTraceOfTwoProcessesReadsBackWithEveryPid) {
  CollectingDiagnostics diagnostics;
  ProcessesSink direct;
  stacktrack::read_trace(*memory_input(two_processes()), direct, diagnostics);
  const ScratchDir dir;
  {
    OutputStream out((dir / "two.txt").string(), {});
    TextWriter writer(out, {.origin = "test"});
    stacktrack::read_trace(*memory_input(two_processes()), writer, diagnostics);
    out.commit();
  }
  const std::string text = read_file(dir / "two.txt");
  EXPECT_EQ(text.substr(0, text.find("1. loop")),
            "version=2.0, arch=, timestamp=2005.3.25 13:21:05, process=, pid=2561, "
            "backtrace depth=1, origin=test, \n"
            "## process: pid=2818, process=, timestamp=2005.3.25 13:21:05, backtrace depth=1, \n"
            "<1> : checkpoint (StackTrack checkpoint hits)\n");
  EXPECT_NE(text.find("\n## pid=2818\n1. [00:00:01.500] serve({call})\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("\n## pid=2561\n2. loop({call})\n"), std::string::npos) << text;
  ProcessesSink read_back;
  read_sprtrace_text(*memory_input(text), read_back, diagnostics);
  EXPECT_EQ(diagnostics.text(), "");
  EXPECT_EQ(read_back.processes, direct.processes);
  EXPECT_EQ(read_back.calls, direct.calls);
  EXPECT_EQ(direct.processes.size(), 2U);
  EXPECT_EQ(direct.calls.size(), 9U);
}

std::string process_command(const std::string& args) {
  return rtrace_bin() + " process " + args;
}

TEST(StackTrackPipeline, FixtureBecomesOneTextTrace) {
  const auto r = run_command(process_command("-i " + quote(fixture("stacktrack/sample.raw"))));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, header(0x060c) + R"(1. file_sink_impl::open({call})
	0x0 file_sink_impl::open() at ..\..\..\libs\stacktrack\src\filesink.cpp:98

2. name({call})
	$info = bar
	0x0 name() at ..\..\..\libs\stacktrack\src\filesink.cpp:99

)");
  EXPECT_EQ(r.err, "");
}

TEST(StackTrackPipeline, ProcessesFollowOneAnotherOnStandardOutput) {
  const ScratchDir dir;
  write_file(dir / "two.raw", two_processes());
  const auto r = run_command(process_command("-i " + quote(dir / "two.raw")));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, kTraceA + kTraceB);
  EXPECT_EQ(r.err, "");
  // Each trace is a text trace of its own: read back, it prints the same.
  write_file(dir / "a.txt", kTraceA);
  const auto again = run_command(process_command("-i " + quote(dir / "a.txt")));
  EXPECT_EQ(again.out, kTraceA);
}

TEST(StackTrackPipeline, OneFilePerProcessInADirectory) {
  const ScratchDir dir;
  write_file(dir / "two.raw", two_processes());
  std::filesystem::create_directory(dir / "out");
  const auto r =
      run_command(process_command("-i " + quote(dir / "two.raw") + " -o " + quote(dir / "out")));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  const std::string a = (dir / "out" / "2561-0.rtrace.txt").string();
  const std::string b = (dir / "out" / "2818-0.rtrace.txt").string();
  EXPECT_EQ(r.err, "rtrace: created " + a + "\nrtrace: created " + b + "\n");
  EXPECT_EQ(read_file(a), kTraceA);
  EXPECT_EQ(read_file(b), kTraceB);
  // Stages run per process: -l writes each trace with its own leak summary.
  const auto leaks = run_command(process_command("-l -i " + quote(dir / "two.raw")));
  ASSERT_EQ(leaks.status, 0) << leaks.err;
  const std::string summary =
      "# Resource - checkpoint (StackTrack checkpoint hits):\n"
      "# 0 block(s) leaked with total size of 0 bytes\n";
  const std::string::size_type second = leaks.out.find("version=2.0", 1);
  ASSERT_NE(second, std::string::npos) << leaks.out;
  EXPECT_TRUE(leaks.out.substr(0, second).ends_with(summary)) << leaks.out;
  EXPECT_TRUE(leaks.out.ends_with(summary)) << leaks.out;
  EXPECT_NE(leaks.out.find("pid=2561, filter=leaks"), std::string::npos);
  EXPECT_NE(leaks.out.find("pid=2818, filter=leaks"), std::string::npos);
}

// A file naming more processes than rtrace process splits an input into (PidSplit::kMaxProcesses:
// every process holds an output file and its stages) stops with an error naming the limit and
// the file; the processes before it are written whole.
TEST(StackTrackPipeline, ProcessesPastTheLimitAreAClearError) {
  RawEncoder e(default_layout(), Order::Little);
  constexpr std::uint64_t kProcesses = 513;
  for (std::uint64_t pid = 1; pid <= kProcesses; ++pid) {
    e.process_start(pid, 1000, 0);
    e.entry("FLOC", pid, 1, {{"filenum", 1}}, true);
    e.info(pid, 1, "p.cpp");
    e.entry("SLOC", pid, 1, {{"scopeIndex", 1}, {"style", 3}, {"linenum", 1}, {"filenum", 1}},
            true);
    e.info(pid, 1, "step");
    e.entry("HIT", pid, 1, {{"when", 10}, {"scopeIndex", 1}, {"tid", 1}});
  }
  const ScratchDir dir;
  write_file(dir / "many.raw", e.bytes());
  // Also with the filters that write only at the end of the input.
  for (const std::string options : {"", " -l", " -c"}) {
    const std::filesystem::path out = dir / ("out" + options);
    std::filesystem::create_directory(out);
    const auto r = run_command(
        process_command("-q" + options + " -i " + quote(dir / "many.raw") + " -o " + quote(out)));
    EXPECT_NE(r.status, 0) << options;
    EXPECT_NE(r.err.find(fmt::format("rtrace: {}:", (dir / "many.raw").string())),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("more than 512 processes in one trace"), std::string::npos) << r.err;
    std::size_t written = 0;
    for (const auto& entry : std::filesystem::directory_iterator(out)) {
      const std::string trace = read_file(entry.path());
      // The checkpoint hit is a call; -l keeps none of them (no leak), only the header.
      EXPECT_NE(trace.find(options == " -l" ? "filter=leaks" : "step("), std::string::npos)
          << options << " " << entry.path() << "\n"
          << trace;
      ++written;
    }
    EXPECT_EQ(written, 512U) << options;
  }
}

TEST(StackTrackPipeline, ReportProfilesCheckpoints) {
  const ScratchDir dir;
  write_file(dir / "two.raw", two_processes());
  const auto r = run_command(rtrace_bin() + " report -i " + quote(dir / "two.raw"));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string::size_type section = r.out.find("\nCHECKPOINTS");
  ASSERT_NE(section, std::string::npos) << r.out;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')),
            "rtrace report: (program not recorded) (pid 2818), 9 calls");
  // Times since the earliest hit of the stream (process 2561's first, 0.0001 s on its clock).
  EXPECT_EQ(r.out.substr(section),
            R"(
CHECKPOINTS (calls that neither allocate nor release; seconds since the trace's start)
  loop at src/a.cpp:10 (pid 2561): 6 hit(s) in 2 thread(s), first 0.000000, last 0.001400
    between hits of one thread: min 0.000100, median 0.000300, max 0.001000 (4 interval(s))
  serve at b.cpp:5 (pid 2818): 2 hit(s) in 1 thread(s), first 1.499900, last 2.499900
    between hits of one thread: min 1.000000, median 1.000000, max 1.000000 (1 interval(s))
  io at src/a.cpp:12 (pid 2561): 1 hit(s) in 1 thread(s), first 0.000500, last 0.000500
    between hits of one thread: no interval
)");
}

TEST(StackTrackPipeline, ReportOfTheFixture) {
  const auto r =
      run_command(rtrace_bin() + " report -i " + quote(fixture("stacktrack/sample.raw")));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string::size_type section = r.out.find("\nCHECKPOINTS");
  ASSERT_NE(section, std::string::npos) << r.out;
  // Times since the trace's first hit.
  EXPECT_EQ(r.out.substr(section),
            R"(
CHECKPOINTS (calls that neither allocate nor release; seconds since the trace's start)
  file_sink_impl::open at ..\..\..\libs\stacktrack\src\filesink.cpp:98 (pid 1548): 1 hit(s) in 1 thread(s), first 0.000000, last 0.000000
    between hits of one thread: no interval
  name at ..\..\..\libs\stacktrack\src\filesink.cpp:99 (pid 1548): 1 hit(s) in 1 thread(s), first 0.000045, last 0.000045
    between hits of one thread: no interval
)");
}

}  // namespace
}  // namespace rtrace::stacktrack::test
