// `rtrace record` gives each traced process the file its trace goes to, and the process writes
// it itself (trace_file_passing.h): while the program runs, it holds the recorder's temporary in
// the output directory; the file is then named <program>.<pid>.rtrace and reads back. With -P the
// recorder post-processes the stream, which then comes through the connection: the process holds
// no file.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "support/test_paths.h"

namespace rtrace {
namespace {

namespace fs = std::filesystem;
using test::files_in;
using test::read_file;
using test::run_command;
using test::ScratchDir;

std::string quote(const fs::path& p) {
  return test::quoted(p);
}
std::string bin(const std::string& name) {
  return test::built_tool(name);
}

struct WhileRunning {
  int status = 0;
  std::string err;
  std::string pid;
  std::string descriptors;  // the targets of the program's descriptors, one a line
};

// Records trace_end_program's "wait" mode with `options` into `traces`, and lists the program's
// open descriptors while it waits.
WhileRunning record_waiting(const ScratchDir& out, const fs::path& traces,
                            const std::string& options) {
  const fs::path fifo = out / "in";
  const fs::path pid = out / "pid";
  const fs::path fds = out / "fds";
  const auto r = run_command(
      "mkfifo " + quote(fifo) + " || exit 9; " + bin("rtrace") + " record -q -s -e memory " +
      options + " -o " + quote(traces) + " -x " + quote(RTRACE_TRACE_END_PROGRAM) + " wait < " +
      quote(fifo) + " > " + quote(pid) + " & recorder=$!; exec 3> " + quote(fifo) + "; " +
      test::shell_wait_for_content(pid, "$recorder") + "for fd in /proc/$(cat " + quote(pid) +
      ")/fd/*; do readlink $fd; done > " + quote(fds) + "; echo go >&3; exec 3>&-; wait $recorder");
  std::string program_pid = read_file(pid);
  while (!program_pid.empty() && program_pid.back() == '\n') {
    program_pid.pop_back();
  }
  return {r.status, r.err, program_pid, read_file(fds)};
}

TEST(TraceFilePassing, TheProcessWritesTheRecordersFileItself) {
  for (const std::string format : {"compact", "sp-rtrace"}) {
    const ScratchDir out;
    const fs::path traces = out / "traces";
    fs::create_directory(traces);
    const WhileRunning run = record_waiting(out, traces, "--format " + format);
    ASSERT_EQ(run.status, 0) << format << run.err;
    // mkstemp's temporary beside the traces, named when the trace is whole.
    const std::regex temporary("(^|\n)" + fs::canonical(traces).string() +
                               R"(/\.rtrace\.[A-Za-z0-9]{6}\n)");
    EXPECT_TRUE(std::regex_search(run.descriptors, temporary)) << format << run.descriptors;
    const std::vector<fs::path> files = files_in(traces);
    ASSERT_EQ(files.size(), 1U) << format << run.err;
    // Named after the program as its argv[0] says; the sp-rtrace format keeps the original's names.
    EXPECT_EQ(files[0].filename().string(),
              format == "compact" ? "recorder_trace_end_program." + run.pid + ".rtrace"
                                  : run.pid + "-0.rtrace");
    const auto leaks = run_command(bin("rtrace") + " process -l -i " + quote(files[0]));
    EXPECT_EQ(leaks.status, 0) << leaks.err;
    EXPECT_EQ(leaks.err, "") << format;
    EXPECT_NE(leaks.out.find("malloc(100)"), std::string::npos) << format << leaks.out;
  }
}

TEST(TraceFilePassing, PostProcessingInTheRecorderKeepsTheStream) {
  const ScratchDir out;
  const fs::path traces = out / "traces";
  fs::create_directory(traces);
  const WhileRunning run = record_waiting(out, traces, "-P '-l'");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.descriptors.find("/.rtrace."), std::string::npos) << run.descriptors;
  EXPECT_NE(run.descriptors.find("socket:["), std::string::npos) << run.descriptors;
  const std::vector<fs::path> files = files_in(traces);
  ASSERT_EQ(files.size(), 1U) << run.err;
  EXPECT_NE(read_file(files[0]).find("malloc(100)"), std::string::npos);
}

}  // namespace
}  // namespace rtrace
