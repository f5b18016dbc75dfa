// `rtrace report` on the original tools' traces, as a user runs it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/test_paths.h"

namespace rtrace {
namespace {

std::string report(const std::string& arguments) {
  return (test::build_dir() / "bin" / "rtrace").string() + " report " + arguments;
}
std::string fixture_arg(const std::string& relative) {
  return "'" + test::fixture("sp-rtrace/" + relative).string() + "'";
}

TEST(ReportCli, TextSummaryOfTheMemoryTrace) {
  RTRACE_NEEDS_FIXTURES();
  const test::CommandResult r =
      test::run_command(report(fixture_arg("memory/memory.raw") + " -n 1 --no-resolve"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find("\nPEAK")),
            "rtrace report: ./memory (pid 778), 44 calls\n"
            "command line: ./memory (arguments are not recorded)\n"
            "peak RSS: not recorded (only rtrace's tracer records it)\n"
            "heap statistics: none in the trace\n\nTOTALS\n"
            "  memory (memory allocation in bytes): 44 calls, 25 allocations of 7554 bytes, 19 "
            "releases, 19 temporary\n");
  // The same numbers the leak filter prints (memory.l.txt).
  EXPECT_NE(r.out.find("  memory: 6 block(s) leaked, 4900 bytes\n"
                       "    4096 bytes in 1 block(s) of memory from:\n"
                       "      0x7f75690a28cc in /usr/lib/x86_64-linux-gnu/libc.so.6\n"),
            std::string::npos);
  // Since the trace's first call: every call of this trace carries the same millisecond.
  EXPECT_NE(r.out.find("  memory: 4900 bytes alive after call 44, in the trace's first millisecond\n"),
            std::string::npos)
      << r.out;
}

TEST(ReportCli, JsonWithSuppressionsOfResolvedText) {
  RTRACE_NEEDS_FIXTURES();
  // memory.lcr.txt names the program's functions, so a suppression can pick one leak site.
  const test::ScratchDir dir;
  test::write_file(dir / "supp", "# the two 100-byte blocks\nleak:^leaf_malloc_leak$\n");
  const test::CommandResult r =
      test::run_command(report(fixture_arg("memory/memory.lcr.txt") + " --json --suppressions '" +
                               (dir / "supp").string() + "'"));
  ASSERT_EQ(r.status, 0) << r.err;
  // An sp-rtrace trace: no command line, no end record, never incomplete.
  EXPECT_EQ(
      r.out.rfind("{\n  \"process\": \"./memory\",\n  \"pid\": 778,\n  \"command_line\": null, "
                  "\"command_line_shell\": null, \"command_line_cut\": false, "
                  "\"trace_end\": null, \"incomplete\": false, \"incomplete_message\": null, "
                  "\"leaks_are\": \"leaked\",\n  \"calls\": 6,\n",
                  0),
      0U)
      << r.out.substr(0, 400);
  EXPECT_NE(r.out.find("\"suppressed\": {\"blocks\": 2, \"bytes\": 200, \"rules\": [{\"rule\": "
                       "\"leak:^leaf_malloc_leak$\", \"source\": "),
            std::string::npos);
  EXPECT_NE(r.out.find("\"leaked_blocks\": 4, \"leaked_bytes\": 4700"), std::string::npos);
  EXPECT_NE(r.out.find("\"0x401239 leaf_memalign_leak() from /tmp/ref/progs/memory\""),
            std::string::npos);
}

TEST(ReportCli, DiffOfOneTraceInTwoFormatsShowsNoGrowth) {
  RTRACE_NEEDS_FIXTURES();
  const test::CommandResult r = test::run_command(report(
      fixture_arg("memory/memory.txt") + " --json --diff " + fixture_arg("memory/memory.raw")));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"diff\": {\"types\": [{\"type\": \"memory\", \"unit\": \"block\", "
                       "\"sized\": true, \"growth\": "
                       "{\"allocations\": 0, \"bytes_allocated\": 0, \"leaked_blocks\": 0, "
                       "\"leaked_bytes\": 0, \"peak_bytes\": 0}}], \"sites\": []}"),
            std::string::npos)
      << r.out;
}

// Descriptors and streams are counted, not weighed: their growth is in descriptors and streams,
// with no bytes (the leak-filtered baseline holds only the leaked calls).
TEST(ReportCli, DiffOfCountedTypesSpeaksOfResourcesNotBytes) {
  RTRACE_NEEDS_FIXTURES();
  const test::CommandResult r =
      test::run_command(report(fixture_arg("fd/fd.raw") + " --diff " + fixture_arg("fd/fd.l.txt")));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("GROWTH SINCE THE BASELINE\n"
                       "  fd: +7 allocations, +0 leaked descriptor(s)\n"
                       "  fp: +1 allocations, +0 leaked stream(s)\n"
                       "    +0 leaked descriptor(s) in +2 allocations (fd) from:\n"),
            std::string::npos)
      << r.out;
  const test::CommandResult json = test::run_command(
      report(fixture_arg("fd/fd.raw") + " --json --diff " + fixture_arg("fd/fd.l.txt")));
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_NE(json.out.find("{\"type\": \"fd\", \"unit\": \"descriptor\", \"sized\": false, "),
            std::string::npos)
      << json.out;
}

TEST(ReportCli, BadSuppressionFileIsAnError) {
  RTRACE_NEEDS_FIXTURES();
  const test::ScratchDir dir;
  test::write_file(dir / "supp", "foo\n");
  const test::CommandResult r = test::run_command(
      report(fixture_arg("fd/fd.raw") + " --suppressions '" + (dir / "supp").string() + "'"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("supp:1: expected 'leak:PATTERN'"), std::string::npos);
}

// The whole pipeline on a program of ours: record it, report on the trace. The report resolves
// the frames, so every leak site is named with its source line.
TEST(ReportCli, RecordedExampleLeaksAreNamedWithTheirLines) {
  const test::ScratchDir dir;
  const std::string rtrace = (test::build_dir() / "bin" / "rtrace").string();
  const std::string leaky = (test::build_dir() / "examples" / "leaky").string();
  const auto recorded = test::run_command(rtrace + " record -q -s -e memory -o '" +
                                          dir.path().string() + "' -x " + leaky);
  ASSERT_EQ(recorded.status, 0) << recorded.err;
  const auto traces = std::filesystem::directory_iterator(dir.path());
  const std::string trace = traces->path().string();

  const auto r = test::run_command(report("'" + trace + "'"));
  ASSERT_EQ(r.status, 0) << r.err;
  // leaky.c: 4 titles of 7 bytes, the 1280-byte log, 4096 bytes of scratch; stdout's buffer is
  // the C library's, suppressed by rtrace's default rules.
  EXPECT_NE(r.out.find("  memory: 6 block(s) leaked, 5404 bytes\n"
                       "  suppressed: 1 block(s), 4096 bytes\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    28 bytes in 4 block(s) of memory from:\n"), std::string::npos);
  for (const char* frame : {" document_open() at leaky.c:19\n", " main() at leaky.c:40\n",
                            " grow_log() at leaky.c:34\n", " main() at leaky.c:44\n"}) {
    EXPECT_NE(r.out.find(frame), std::string::npos) << frame << "\n" << r.out;
  }
}

// Damaged input: the report of everything before the damage comes out, then the error (the
// same policy as rtrace process, which writes what it read before reporting).
TEST(ReportCli, DamagedInputPrintsThePartialReportThenTheError) {
  RTRACE_NEEDS_FIXTURES();
  const test::ScratchDir dir;
  std::string text = test::read_file(test::fixture("sp-rtrace/memory/memory.txt"));
  text.insert(text.find("\n30. ") + 1, "30. malloc(oops) = 0x10\n");
  test::write_file(dir / "damaged.txt", text);
  const test::CommandResult r =
      test::run_command(report("'" + (dir / "damaged.txt").string() + "' --no-resolve"));
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(r.out.starts_with("rtrace report: ./memory (pid 778), 29 calls\n")) << r.out;
  EXPECT_TRUE(r.err.starts_with("rtrace: " + (dir / "damaged.txt").string() + ":")) << r.err;
}

// With nothing read before the error (an empty file, a file that is no trace) the error is all.
TEST(ReportCli, NoTraceAtAllGivesTheErrorAlone) {
  const test::ScratchDir dir;
  test::write_file(dir / "empty", "");
  test::write_file(dir / "text", "hello\n");
  test::CommandResult r = test::run_command(report("'" + (dir / "empty").string() + "'"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "rtrace: " + (dir / "empty").string() + ":0: empty input\n");
  r = test::run_command(report("'" + (dir / "text").string() + "'"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "rtrace: " + (dir / "text").string() + ":0: not a trace in any format rtrace reads\n");
  // In JSON the report of nothing stays: the document must stay whole.
  r = test::run_command(report("--json '" + (dir / "empty").string() + "'"));
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(r.out.starts_with("{")) << r.out;
}

}  // namespace
}  // namespace rtrace
