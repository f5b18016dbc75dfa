// `rtrace process` / `sp-rtrace-postproc` as a user runs them: inputs from files, stdin and
// compressed files, outputs to stdout, files and directories, and what happens with bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/memory_limit.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

using test::fixture;
using test::read_file;
using test::run_command;
using test::ScratchDir;

std::string rtrace_bin() {
  return (test::build_dir() / "bin" / "rtrace").string();
}
std::string postproc_bin() {
  return (test::build_dir() / "bin" / "sp-rtrace-postproc").string();
}
std::string quote(const std::filesystem::path& p) {
  return "'" + p.string() + "'";
}

// The original's output for memory.raw with our origin field.
std::string expected_memory_txt() {
  std::string text = read_file(fixture("sp-rtrace/memory/memory.txt"));
  const std::string theirs = "origin=sp-rtrace 1.8, ";
  text.replace(text.find(theirs), theirs.size(), "origin=rtrace 0.1.0, ");
  return text;
}

TEST(ProcessCli, ConvertsBinaryFileToText) {
  RTRACE_NEEDS_FIXTURES();
  const auto r =
      run_command(rtrace_bin() + " process -i " + quote(fixture("sp-rtrace/memory/memory.raw")));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, expected_memory_txt());
  EXPECT_EQ(r.err, "");
}

TEST(ProcessCli, TheTraceMayBeGivenAsAnArgument) {
  RTRACE_NEEDS_FIXTURES();
  const std::string raw = quote(fixture("sp-rtrace/memory/memory.raw"));
  auto r = run_command(rtrace_bin() + " process " + raw);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, expected_memory_txt());
  r = run_command(rtrace_bin() + " process -l " + raw + " -c");  // options on either side
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, run_command(rtrace_bin() + " process -l -c -i " + raw).out);
  // Only one trace: a second is an error, not silently ignored.
  r = run_command(rtrace_bin() + " process " + raw + " " + raw);
  EXPECT_EQ(r.status, 2);
}

TEST(ProcessCli, CompatibleNameReadsStandardInput) {
  RTRACE_NEEDS_FIXTURES();
  const auto r =
      run_command(postproc_bin() + " < " + quote(fixture("sp-rtrace/memory/memory.raw")));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, expected_memory_txt());
}

TEST(ProcessCli, OpensGzipAndZstdInputByContent) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir dir;
  const auto raw = quote(fixture("sp-rtrace/memory/memory.raw"));
  ASSERT_EQ(run_command("gzip -c " + raw + " > " + quote(dir / "t1")).status, 0);
  ASSERT_EQ(run_command("zstd -q -c " + raw + " > " + quote(dir / "t2")).status, 0);
  for (const char* name : {"t1", "t2"}) {
    const auto r = run_command(rtrace_bin() + " process -i " + quote(dir / name));
    ASSERT_EQ(r.status, 0) << name << ": " << r.err;
    EXPECT_EQ(r.out, expected_memory_txt()) << name;
  }
}

TEST(ProcessCli, OutputDirectoryGetsNumberedFilesNeverReplaced) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir dir;
  const auto raw = quote(fixture("sp-rtrace/memory/memory.raw"));
  test::write_file(dir / "778-0.rtrace.txt", "keep me");
  const auto r = run_command(rtrace_bin() + " process -i " + raw + " -o " + quote(dir.path()));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_file(dir / "778-0.rtrace.txt"), "keep me");
  EXPECT_EQ(read_file(dir / "778-1.rtrace.txt"), expected_memory_txt());
  EXPECT_NE(r.err.find("778-1.rtrace.txt"), std::string::npos);
}

TEST(ProcessCli, OutputFileIsWrittenAndTheInputNeverOverwritten) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir dir;
  std::filesystem::copy_file(fixture("sp-rtrace/memory/memory.raw"), dir / "t.raw");
  const auto ok = run_command(rtrace_bin() + " process -i " + quote(dir / "t.raw") + " -o " +
                              quote(dir / "t.txt"));
  ASSERT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(read_file(dir / "t.txt"), expected_memory_txt());

  const std::string before = read_file(dir / "t.raw");
  const auto refused = run_command(rtrace_bin() + " process -i " + quote(dir / "t.raw") + " -o " +
                                   quote(dir / "t.raw"));
  EXPECT_EQ(refused.status, 1);
  EXPECT_NE(refused.err.find("refusing to overwrite"), std::string::npos) << refused.err;
  EXPECT_EQ(read_file(dir / "t.raw"), before);
}

TEST(ProcessCli, BinaryRoundTripThroughTheCommandIsByteIdentical) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir dir;
  for (const char* name :
       {"memory/memory.raw", "fd/fd.raw", "shmsysv/shmsysv.raw", "context/context.raw"}) {
    const auto raw = fixture(std::string("sp-rtrace/") + name);
    const auto r = run_command(rtrace_bin() + " process --to binary -i " + quote(raw) + " -o " +
                               quote(dir / "copy.raw"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_file(dir / "copy.raw"), read_file(raw)) << name;
  }
}

TEST(ProcessCli, TruncatedInputKeepsWhatCameBeforeAndWarnsWithTheOffset) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir dir;
  const std::string raw = read_file(fixture("sp-rtrace/memory/memory.raw"));
  // Cut in the middle of the backtrace packet of call 25 (it spans bytes 3000-3076).
  test::write_file(dir / "cut.raw", raw.substr(0, 3010));
  const auto r = run_command(rtrace_bin() + " process -i " + quote(dir / "cut.raw"));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "rtrace: " + (dir / "cut.raw").string() +
                       ":3000: warning: truncated packet (10 of 76 bytes); ignored\n");
  // Calls 1-24 are there exactly as in the full conversion; call 25 lost its backtrace.
  const std::string full = expected_memory_txt();
  const std::size_t call25 = full.find("\n25. ") + 1;
  EXPECT_EQ(r.out.substr(0, call25), full.substr(0, call25));
  EXPECT_EQ(r.out.substr(call25), "25. [00:07:18.233] posix_memalign(64) = 0x15dd0ba0\n\n");

  const auto strict = run_command(rtrace_bin() + " process --strict -i " + quote(dir / "cut.raw"));
  EXPECT_EQ(strict.status, 1);
  EXPECT_EQ(strict.out, r.out);
}

TEST(ProcessCli, GarbageIsRejectedWithFileAndPosition) {
  const ScratchDir dir;
  test::write_file(dir / "junk", std::string("\x7f"
                                             "ELF\x02\x01\x01",
                                             7) +
                                     std::string(100, '\0'));
  const auto r = run_command(rtrace_bin() + " process -i " + quote(dir / "junk"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "rtrace: " + (dir / "junk").string() + ":0: not a trace in any format rtrace reads\n");
  EXPECT_EQ(r.out, "");

  test::write_file(dir / "empty", "");
  const auto e = run_command(rtrace_bin() + " process -i " + quote(dir / "empty"));
  EXPECT_EQ(e.status, 1);
  EXPECT_EQ(e.err, "rtrace: " + (dir / "empty").string() + ":0: empty input\n");

  // A file of /proc says it has no bytes and has them when read: it is read, not taken as empty.
  const auto p = run_command(rtrace_bin() + " process -i /proc/self/maps");
  EXPECT_EQ(p.status, 1);
  EXPECT_EQ(p.err, "rtrace: /proc/self/maps:0: not a trace in any format rtrace reads\n");
}

// Comment lines are held until the next call (before the first: to print them in the original's
// order; after the last with -c: to print them after the groups). An endless run of them stops
// with an error naming the line and the limit, within a bounded address space, instead of filling
// the memory; what came before is written.
TEST(ProcessCli, EndlessCommentsStopAtALimitInBoundedMemory) {
  const std::string comments =
      "yes '## a comment line, one of very many, all of them the same: 64 bytes' | head -n 4000000";
  const std::string limited = test::memory_bounded(256) + rtrace_bin() + " process";
  // 16 MiB of 67-byte lines is 250407 lines: the error names the line after them.
  const std::string message =
      ": more than 1000000 comment or registry lines (or 16 MiB) in a row without a call record: "
      "rtrace keeps such lines in memory until the next call, so it stops here\n";

  const auto before = run_command("(printf 'version=2.0, \\n'; " + comments + ") | " + limited);
  EXPECT_EQ(before.status, 1);
  EXPECT_EQ(before.err, "rtrace: <stdin>:250408" + message);
  EXPECT_TRUE(before.out.starts_with("version=2.0, ")) << before.out.substr(0, 100);

  const auto after = run_command("(printf 'version=2.0, \\n1. malloc(5) = 0x10\\n\\n'; " +
                                 comments + ") | " + limited + " -c");
  EXPECT_EQ(after.status, 1);
  EXPECT_EQ(after.err, "rtrace: <stdin>:250410" + message);
  EXPECT_TRUE(after.out.find("1. malloc(5) = 0x10\n") != std::string::npos)
      << after.out.substr(0, 200);
}

TEST(ProcessCli, MissingInputFileIsNamed) {
  const auto r = run_command(rtrace_bin() + " process -i /nonexistent/trace.raw");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "rtrace: /nonexistent/trace.raw: No such file or directory\n");
}

TEST(ProcessCli, BadOptionsExitWithTwo) {
  EXPECT_EQ(run_command(rtrace_bin() + " process --no-such-option").status, 2);
  EXPECT_EQ(run_command(postproc_bin() + " -s sideways").status, 2);
  EXPECT_EQ(run_command(rtrace_bin()).status, 2);
  const auto help = run_command(postproc_bin() + " -h");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--filter-leaks"), std::string::npos);
}

}  // namespace
}  // namespace rtrace
