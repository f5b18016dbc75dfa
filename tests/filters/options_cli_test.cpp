// How the filter options behave on the command line beyond the fixtures: bad values and
// combinations, --include / --exclude files, -a.
#include <gtest/gtest.h>

#include <string>

#include "support/test_paths.h"

namespace rtrace {
namespace {

using test::fixture;
using test::run_command;

std::string postproc(const std::string& options) {
  return (test::build_dir() / "bin" / "sp-rtrace-postproc").string() + " -i '" +
         fixture("sp-rtrace/fd/fd.raw").string() + "' " + options;
}

// The call lines ("N. ...") of a text trace.
std::string call_indices(const std::string& text) {
  std::string indices;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end - start);
    const std::size_t dot = line.find(". ");
    if (dot != std::string::npos && line.find_first_not_of("0123456789") == dot) {
      indices += line.substr(0, dot) + " ";
    }
    if (end == std::string::npos) {
      break;
    }
    start = end + 1;
  }
  return indices;
}

TEST(FilterOptions, SortWithoutCompressIsAnError) {
  RTRACE_NEEDS_FIXTURES();
  const test::CommandResult r = run_command(postproc("-l -s size"));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "rtrace: -s/--sort needs -c/--compress\n");
}

TEST(FilterOptions, BadMasksAndRangesAreErrors) {
  RTRACE_NEEDS_FIXTURES();
  for (const char* options : {"-C zz", "-R 1x", "--call-address libc", "-C ''"}) {
    const test::CommandResult r = run_command(postproc(options));
    EXPECT_EQ(r.status, 2) << options;
    EXPECT_EQ(r.out, "") << options;
    EXPECT_NE(r.err.find("rtrace: "), std::string::npos) << options;
  }
}

TEST(FilterOptions, ResolveRunsLastAndMarksTheHeader) {
  RTRACE_NEEDS_FIXTURES();
  // The traced binaries are not here, so names are only as good as this machine's files; what
  // -r must do regardless: every backtrace line names its module, the header says resolve.
  const test::CommandResult r = run_command(postproc("-lcr"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("version=2.0, arch=x86_64, timestamp=2026.11.21 11:09:35, process=./fd, "
                        "pid=1382, filter=leaks|compress|resolve, ",
                        0),
            0U);
  EXPECT_NE(r.out.find("# allocation summary: 1 block(s) with total size 1\n\t0x401242 "),
            std::string::npos);
  EXPECT_EQ(r.out.find("\t0x401242\n"), std::string::npos);
}

TEST(FilterOptions, IncludeAndExcludeFiles) {
  RTRACE_NEEDS_FIXTURES();
  const test::ScratchDir dir;
  test::write_file(dir / "list", "1\n4\n14\n# comment\n");
  const std::string list = "'" + (dir / "list").string() + "'";

  test::CommandResult r = run_command(postproc("--include " + list));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(call_indices(r.out), "1 4 14 ");

  r = run_command(postproc("--exclude " + list + " -R 2"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(call_indices(r.out), "15 19 ");

  // Selection happens before -l: without the releases every listed block is a leak.
  r = run_command(postproc("-l --include " + list));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(call_indices(r.out), "1 4 14 ");

  r = run_command(postproc("--include '" + (dir / "missing").string() + "'"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("missing"), std::string::npos);
}

TEST(FilterOptions, CallAddressKeepsCallsFromTheRange) {
  RTRACE_NEEDS_FIXTURES();
  // fd.raw maps the fd program (ET_EXEC) at 0x401000; 0x401281 is in open_leak's caller chain.
  test::CommandResult r = run_command(postproc("--call-address fd:401280+2"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(call_indices(r.out), "1 ");

  r = run_command(postproc("--call-address nothing-like-this:0+1"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(call_indices(r.out), "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 ");
  EXPECT_NE(r.err.find("no module matches 'nothing-like-this'"), std::string::npos);
}

TEST(FilterOptions, RemoveArgsDropsArgumentLines) {
  RTRACE_NEEDS_FIXTURES();
  const test::CommandResult r = run_command(postproc("-a"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("\t$"), std::string::npos);
  EXPECT_NE(r.out.find("1. [00:07:43.343] open<fd>(1) = 0x4\n\t0x7f8ea816a7be\n"),
            std::string::npos);
}

}  // namespace
}  // namespace rtrace
