// `rtrace record` on a terminal that the traced program writes to as well, through a
// pseudo-terminal (util-linux `script` runs the command on one): the program's lines come out
// intact, with no progress line drawn into them, and each trace is announced after them on a
// line of its own.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "io/progress.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

namespace fs = std::filesystem;
using test::quoted;
using test::ScratchDir;

// `command` with a terminal as its standard output and error; what the terminal received, with
// the terminal's line ends ("\r\n") made "\n".
test::CommandResult on_a_terminal(const std::string& command) {
  test::CommandResult r = test::run_command("script -qec \"" + command + "\" /dev/null");
  for (std::size_t at = 0; (at = r.out.find("\r\n", at)) != std::string::npos;) {
    r.out.erase(at, 1);
  }
  return r;
}

std::string record_chatty_program(const fs::path& directory, const std::string& options) {
  return test::built_tool("rtrace") + " record " + options + " -o " + quoted(directory) + " -- " +
         quoted(RTRACE_CHATTY_PROGRAM);
}

// What the program writes: stdout is line-buffered on a terminal and flushed before each line to
// stderr, so the order is fixed.
std::string chatty_lines() {
  std::string lines;
  for (int line = 0; line < 10; ++line) {
    lines += "out " + std::to_string(line) + "\nerr " + std::to_string(line) + "\n";
  }
  return lines;
}

TEST(RecordTerminal, TheProgramsLinesStayIntactAndTheTraceIsAnnouncedAfterThem) {
  const ScratchDir dir;
  const test::CommandResult r = on_a_terminal(record_chatty_program(dir.path(), ""));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::vector<fs::path> traces = test::files_in(fs::canonical(dir.path()));
  ASSERT_EQ(traces.size(), 1U);
  const auto size = static_cast<double>(fs::file_size(traces[0]));
  EXPECT_EQ(r.out, chatty_lines() + "rtrace: trace " + traces[0].string() + ", " +
                       progress_bytes(size) + "\n");
}

TEST(RecordTerminal, QuietLeavesTheProgramsLinesAlone) {
  const ScratchDir dir;
  const test::CommandResult r = on_a_terminal(record_chatty_program(dir.path(), "-q"));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.out, chatty_lines());
  EXPECT_EQ(test::files_in(dir.path()).size(), 1U);
}

}  // namespace
}  // namespace rtrace
