// rtrace resolve and sp-rtrace-resolve as processes, on the original tools' traces: the output
// must be the original resolver's, byte for byte, except where the original is known wrong.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "support/test_paths.h"

namespace rtrace::test {
namespace {

const std::string kLibc = "/usr/lib/x86_64-linux-gnu/libc.so.6";

// The sysroot holding the memory program at the path the traces name, and no libc: libc frames
// stay `from <libc>`, as the original printed most of them.
std::string root_option() {
  return std::string(" -r ") + RESOLVE_FIXTURE_ROOT;
}

std::string tool(const std::string& name) {
  return (build_dir() / "bin" / name).string();
}

// The original resolver computes ET_DYN addresses wrongly (MANIFEST "LIMITATION") and printed
// made-up names for a few libc frames; with no libc under the sysroot the truth is `from libc`.
std::string with_true_libc_frames(const std::string& expected) {
  std::istringstream in(expected);
  std::string line;
  std::string result;
  while (std::getline(in, line)) {
    if (line.starts_with("\t0x7f7569") && line.find(kLibc) == std::string::npos) {
      line.erase(line.find(' '));
      line.append(" from ").append(kLibc);
    }
    result.append(line).append("\n");
  }
  return result;
}

void expect_output(const std::string& command, const std::string& expected) {
  const CommandResult result = run_command(command);
  ASSERT_EQ(result.status, 0) << command << "\n" << result.err;
  EXPECT_EQ(result.out, expected) << command;
}

TEST(ResolveCli, DebugInfoFormIsTheDefault) {
  RTRACE_NEEDS_FIXTURES();
  const std::string input = fixture("sp-rtrace/memory/memory.lc.txt").string();
  const std::string expected =
      with_true_libc_frames(read_file(fixture("sp-rtrace/memory/memory.lc.resolve-default.txt")));
  expect_output(tool("rtrace") + " resolve -i " + input + root_option(), expected);
  expect_output(tool("rtrace") + " resolve " + input + root_option(), expected);  // as an argument
  // The number of threads changes nothing in the output.
  expect_output(tool("rtrace") + " resolve -j 1 -i " + input + root_option(), expected);
  expect_output(tool("rtrace") + " resolve --jobs 4 -i " + input + root_option(), expected);
  expect_output(tool("sp-rtrace-resolve") + " -i " + input + root_option(), expected);
  expect_output(
      tool("sp-rtrace-resolve") + " -t bfd -i " + input + root_option(),
      with_true_libc_frames(read_file(fixture("sp-rtrace/memory/memory.lc.resolve-bfd.txt"))));
}

TEST(ResolveCli, SymbolTableForm) {
  RTRACE_NEEDS_FIXTURES();
  const std::string input = fixture("sp-rtrace/memory/memory.lc.txt").string();
  expect_output(tool("sp-rtrace-resolve") + " -t elf -m single-cache -i " + input + root_option(),
                read_file(fixture("sp-rtrace/memory/memory.lc.resolve-elf.txt")));
}

TEST(ResolveCli, ReadsStandardInputAndWritesAFile) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir scratch;
  const std::string output = (scratch / "out.txt").string();
  const CommandResult result =
      run_command(tool("sp-rtrace-resolve") + " -q -t elf -o " + output + root_option() + " < " +
                  fixture("sp-rtrace/memory/memory.lc.txt").string());
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(read_file(output), read_file(fixture("sp-rtrace/memory/memory.lc.resolve-elf.txt")));
}

// Binary input goes through the trace model: the same frames as the original's postproc -r
// (which runs the resolver's symbol-table method); the header names us as the writer.
TEST(ResolveCli, BinaryInput) {
  RTRACE_NEEDS_FIXTURES();
  std::string expected = read_file(fixture("sp-rtrace/memory/memory.r.txt"));
  const CommandResult result =
      run_command(tool("rtrace") + " resolve -t elf -i " +
                  fixture("sp-rtrace/memory/memory.raw").string() + root_option());
  ASSERT_EQ(result.status, 0) << result.err;
  const auto body = [](const std::string& text) { return text.substr(text.find('\n')); };
  EXPECT_EQ(body(result.out), body(expected));
  EXPECT_NE(result.out.substr(0, result.out.find('\n')).find("filter=resolve, "),
            std::string::npos);
}

// Resolved input: -k keeps the names it has; without -k they are looked up again.
TEST(ResolveCli, KeepResolved) {
  RTRACE_NEEDS_FIXTURES();
  const std::string input = fixture("sp-rtrace/memory/memory.lc.resolve-elf.txt").string();
  expect_output(tool("rtrace") + " resolve -k -i " + input + root_option(), read_file(input));
  expect_output(
      tool("rtrace") + " resolve -i " + input + root_option(),
      with_true_libc_frames(read_file(fixture("sp-rtrace/memory/memory.lc.resolve-default.txt"))));
}

// Without the sysroot nothing of the trace's files is here: only bare module names.
TEST(ResolveCli, MissingModulesNameOnlyTheModule) {
  RTRACE_NEEDS_FIXTURES();
  const CommandResult result = run_command(tool("rtrace") + " resolve -i " +
                                           fixture("sp-rtrace/memory/memory.lc.txt").string());
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_NE(result.out.find("\t0x401239 from /tmp/ref/progs/memory\n"), std::string::npos)
      << result.out;
}

TEST(ResolveCli, HeaderGainsTheResolveFilter) {
  const ScratchDir scratch;
  write_file(scratch / "in.txt",
             "version=2.0, arch=x86_64, timestamp=2026.11.21 11:09:09, process=./x, pid=7, "
             "backtrace depth=10, origin=sp-rtrace 1.8, \n"
             ": /nonexistent/x => 0x1000-0x2000\n"
             "1. malloc(1) = 0x10\n\t0x1800\n\t0x5000\n\n");
  expect_output(tool("rtrace") + " resolve -i " + (scratch / "in.txt").string(),
                "version=2.0, arch=x86_64, timestamp=2026.11.21 11:09:09, process=./x, pid=7, "
                "filter=resolve, backtrace depth=10, origin=sp-rtrace 1.8, \n"
                ": /nonexistent/x => 0x1000-0x2000\n"
                "1. malloc(1) = 0x10\n\t0x1800 from /nonexistent/x\n\t0x5000 in ??\n\n");
}

// Damaged input: a truncated trace is resolved up to the damage, with a warning; input that is
// no trace at all is an error.
TEST(ResolveCli, DamagedInput) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir scratch;
  const std::string raw = read_file(fixture("sp-rtrace/memory/memory.raw"));
  write_file(scratch / "truncated.raw", raw.substr(0, 3001));  // inside a packet
  const CommandResult truncated = run_command(tool("rtrace") + " resolve -t elf -i " +
                                              (scratch / "truncated.raw").string() + root_option());
  EXPECT_EQ(truncated.status, 0) << truncated.err;
  EXPECT_NE(truncated.out.find("\t0x40126e leaf_freed() from /tmp/ref/progs/memory\n"),
            std::string::npos)
      << truncated.out;
  EXPECT_NE(truncated.err.find("truncated.raw:3000: warning"), std::string::npos) << truncated.err;

  write_file(scratch / "garbage", std::string(100, '\x01'));
  const CommandResult garbage =
      run_command(tool("rtrace") + " resolve -i " + (scratch / "garbage").string());
  EXPECT_EQ(garbage.status, 1);
  EXPECT_NE(garbage.err.find("garbage"), std::string::npos) << garbage.err;
}

TEST(ResolveCli, BadOptionsAndInputs) {
  EXPECT_EQ(run_command(tool("sp-rtrace-resolve") + " -t nonsense -i /dev/null").status, 2);
  EXPECT_EQ(run_command(tool("sp-rtrace-resolve") + " -m nonsense -i /dev/null").status, 2);
  EXPECT_EQ(run_command(tool("sp-rtrace-resolve") + " -j -1 -i /dev/null").status, 2);
  EXPECT_EQ(run_command(tool("rtrace") + " resolve -j many -i /dev/null").status, 2);
  const CommandResult missing = run_command(tool("sp-rtrace-resolve") + " -i /nonexistent/trace");
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find("/nonexistent/trace"), std::string::npos) << missing.err;
  EXPECT_EQ(run_command(tool("sp-rtrace-resolve") + " -h").status, 0);
}

}  // namespace
}  // namespace rtrace::test
