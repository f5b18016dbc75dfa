// The progress line of the commands that read traces, seen through a pseudo-terminal
// (util-linux `script` runs the command on one): shown on a terminal, cleared at the end, never
// written when standard error is a file or a pipe, silenced by --quiet.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "support/test_paths.h"

namespace rtrace {
namespace {

std::string rtrace() {
  return (test::build_dir() / "bin" / "rtrace").string();
}
// A trace delivered in two parts a second apart, so that the reader is surely still reading when
// a progress line is due (a tenth of a second after the start or the previous line).
std::string slow_trace() {
  const std::string trace = (test::source_dir() / "examples" / "memory.rtrace").string();
  return "(head -c 2000 '" + trace + "'; sleep 1; tail -c +2001 '" + trace + "')";
}
// `command` with a terminal as its standard output and error; what the terminal received.
test::CommandResult on_a_terminal(const std::string& command) {
  return test::run_command("script -qec \"" + command + "\" /dev/null");
}

TEST(ProgressCli, ReadingShowsBytesAndRateOnATerminalThenClears) {
  const test::ScratchDir dir;
  for (const std::string& command : {"process -i - -o '" + (dir / "out.txt").string() + "'",
                                     "report --html '" + (dir / "report.html").string() + "' -i -",
                                     "export folded -i - -o '" + (dir / "folded").string() + "'"}) {
    const test::CommandResult r = on_a_terminal(slow_trace() + " | " + rtrace() + " " + command);
    ASSERT_EQ(r.status, 0) << command << "\n" << r.out << r.err;
    // One line, redrawn in place (no total: a pipe has no size), then cleared.
    EXPECT_TRUE(std::regex_match(
        r.out, std::regex("(\r\033\\[Krtrace: reading standard input: [0-9.]+ (B|KiB), "
                          "[0-9.]+ (B|KiB)/s)+\r\033\\[K")))
        << command << "\n"
        << r.out;
  }
}

TEST(ProgressCli, QuietOnATerminalShowsNothing) {
  const test::ScratchDir dir;
  const test::CommandResult r = on_a_terminal(
      slow_trace() + " | " + rtrace() + " process -q -i - -o '" + (dir / "out.txt").string() + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, "");
}

TEST(ProgressCli, NothingWhenStandardErrorIsNotATerminal) {
  const test::ScratchDir dir;
  const test::CommandResult r = test::run_command(
      slow_trace() + " | " + rtrace() + " process -i - -o '" + (dir / "out.txt").string() + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(test::read_file(dir / "out.txt").empty());
}

}  // namespace
}  // namespace rtrace
