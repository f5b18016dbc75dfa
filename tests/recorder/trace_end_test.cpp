// How a trace ends, end to end with the real tracer: a program (trace_end_program.c) recorded by
// `rtrace record` ends by exit, _exit, SIGSEGV, SIGKILL or by tracing being toggled off, and
// `rtrace report` and `rtrace process -l` say how, with its full command line and its peak RSS;
// a killed program's trace is called incomplete, a toggled-off one's blocks are "alive when
// tracing stopped", not leaked. Recorded in the sp-rtrace protocol: the
// compact format does not carry the command line yet (docs/format.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "support/test_paths.h"

namespace rtrace {
namespace {

namespace fs = std::filesystem;
using test::read_file;
using test::run_command;
using test::ScratchDir;

std::string quote(const fs::path& p) {
  return "'" + p.string() + "'";
}
std::string bin(const std::string& name) {
  return quote(test::build_dir() / "bin" / name);
}

const std::string kIncomplete =
    "trace incomplete: the process ended without closing the trace (killed?)";

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    files.push_back(entry.path());
  }
  return files;
}

// The report's lines up to the first empty line: what it says about the process.
std::string report_head(const fs::path& trace) {
  const auto r = run_command(bin("rtrace") + " report " + quote(trace));
  EXPECT_EQ(r.status, 0) << r.err;
  return r.out.substr(0, r.out.find("\n\n") + 1);
}

// The first two lines of the report's section `title`: the title and the first type's total.
std::string section_start(const std::string& report, const std::string& title) {
  const std::size_t at = report.find("\n" + title + "\n");
  if (at == std::string::npos) {
    return {};
  }
  const std::size_t second = report.find('\n', at + 1 + title.size() + 1);
  return report.substr(at + 1, second == std::string::npos ? std::string::npos : second - at);
}

// `head` with the peak RSS line checked (at least the 8 MiB the program touched) and replaced
// by "peak RSS: *" (its value varies from run to run).
std::string without_rss(const std::string& head) {
  static const std::regex rss(
      R"(peak RSS: ([0-9.]+) MiB \(RSS at the end: [0-9.]+ ([KMG]i)?B\)\n)");
  std::smatch m;
  if (!std::regex_search(head, m, rss)) {
    ADD_FAILURE() << "no peak RSS line in:\n" << head;
    return head;
  }
  EXPECT_GE(std::stod(m[1].str()), 8.0) << head;
  return m.prefix().str() + "peak RSS: *\n" + m.suffix().str();
}

struct Recorded {
  int status = 0;
  std::string err;
  fs::path trace;
};

// Records the program in `mode` (with a quoted argument after it) from the start, in `format`.
Recorded record(const ScratchDir& out, const std::string& mode, const std::string& extra = "",
                const std::string& format = "sp-rtrace") {
  const auto r = run_command(bin("rtrace") + " record --format " + format + " -s -e memory " +
                             extra + " -o " + quote(out.path()) + " -x " +
                             quote(RTRACE_TRACE_END_PROGRAM) + " " + mode + " 'two words'");
  const std::vector<fs::path> files = files_in(out.path());
  EXPECT_EQ(files.size(), 1U) << r.err;
  return {r.status, r.err, files.empty() ? fs::path() : files[0]};
}

std::string program() {
  return RTRACE_TRACE_END_PROGRAM;
}

// A process that execs itself leaves two traces under one name: the second one numbered, as the
// recorder numbers it (NAME.PID.1.rtrace) and as the traced process does in managed mode (-m);
// sp-rtrace's format keeps the original's PID-0.rtrace and PID-1.rtrace.
TEST(TraceEnd, ASecondTraceOfAProcessIsNumberedInEveryMode) {
  const std::string name = fs::path(program()).filename().string();
  for (const std::string format : {"compact", "sp-rtrace"}) {
    for (const std::string managed : {"", "-m"}) {
      const ScratchDir out;
      const auto r = run_command(bin("rtrace") + " record -q --format " + format + " " + managed +
                                 " -o " + quote(out.path()) + " -x " + quote(program()) + " exec");
      ASSERT_EQ(r.status, 0) << r.err;
      std::vector<std::string> names;
      for (const fs::path& file : files_in(out.path())) {
        names.push_back(file.filename().string());
      }
      std::sort(names.begin(), names.end());
      ASSERT_EQ(names.size(), 2U) << format << " " << managed;
      // The digits after the program's name (compact) or before the dash (sp-rtrace).
      const std::size_t from = format == "compact" ? name.size() + 1 : 0;
      const std::string pid =
          names[0].substr(from, names[0].find_first_not_of("0123456789", from) - from);
      EXPECT_FALSE(pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos)
          << names[0];
      const std::vector<std::string> expected =
          format == "compact" ? std::vector<std::string>{name + "." + pid + ".1.rtrace",
                                                         name + "." + pid + ".rtrace"}
                              : std::vector<std::string>{pid + "-0.rtrace", pid + "-1.rtrace"};
      EXPECT_EQ(names, expected) << format << " " << managed;
    }
  }
}

// A shell looking for a program along its PATH calls execve once per folder; the names that do
// not exist fail without ending the trace: one trace for the shell, one for the program.
TEST(TraceEnd, AnExecAlongThePathLeavesATracePerProgramNotPerTry) {
  const fs::path path(program());
  for (const std::string managed : {"", "-m"}) {
    const ScratchDir out;
    const auto r =
        run_command(bin("rtrace") + " record -q " + managed + " -o " + quote(out.path()) +
                    " -x sh -c 'PATH=/nonexistent:" + (out / "missing").string() + ":" +
                    path.parent_path().string() + "; exec " + path.filename().string() + " exit'");
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<std::string> names;
    for (const fs::path& file : files_in(out.path())) {
      names.push_back(file.filename().string().substr(0, file.filename().string().find('.')));
    }
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{path.filename().string(), "sh"})) << managed;
  }
}

TEST(TraceEnd, ExitIsACompleteTraceWithItsCommandLineAndPeakRss) {
  const ScratchDir out;
  const Recorded r = record(out, "exit");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
  const std::string head = report_head(r.trace);
  EXPECT_EQ(without_rss(head.substr(head.find('\n') + 1)),
            "command line: " + program() +
                " exit 'two words'\n"
                "trace ended by: exit\n"
                "peak RSS: *\n"
                "heap when tracing stopped: " +
                head.substr(head.find("heap when tracing stopped: ") + 27))
      << head;
  const std::string report = run_command(bin("rtrace") + " report " + quote(r.trace)).out;
  EXPECT_EQ(section_start(report, "LEAKS"), "LEAKS\n  memory: 1 block(s) leaked, 100 bytes\n")
      << report;
  const auto leaks = run_command(bin("rtrace") + " process --strict -l -i " + quote(r.trace));
  EXPECT_EQ(leaks.status, 0) << leaks.err;
  EXPECT_EQ(leaks.err, "");
  EXPECT_NE(leaks.out.find("\n## command line: " + program() + " exit 'two words'\n"),
            std::string::npos)
      << leaks.out;
  EXPECT_NE(leaks.out.find("\n## trace end: pid="), std::string::npos) << leaks.out;
  EXPECT_NE(leaks.out.find(", reason=exit, time="), std::string::npos) << leaks.out;
}

TEST(TraceEnd, UnderscoreExitAndSegvSayHowTheyEnded) {
  const struct {
    const char* mode;
    int status;
    const char* ended_by;
  } cases[] = {
      {"_exit", 3, "trace ended by: _exit\n"},
      {"segv", 128 + 11, "trace ended by: signal 11 (SIGSEGV)\n"},
  };
  for (const auto& c : cases) {
    const ScratchDir out;
    const Recorded r = record(out, c.mode);
    EXPECT_EQ(r.status, c.status) << c.mode << r.err;
    EXPECT_EQ(r.err.find("incomplete"), std::string::npos) << r.err;
    const std::string head = report_head(r.trace);
    EXPECT_NE(
        head.find("\ncommand line: " + program() + " " + c.mode + " 'two words'\n" + c.ended_by),
        std::string::npos)
        << head;
    without_rss(head);
    EXPECT_EQ(head.find(kIncomplete), std::string::npos) << head;
    const std::string report = run_command(bin("rtrace") + " report " + quote(r.trace)).out;
    EXPECT_EQ(section_start(report, "LEAKS"), "LEAKS\n  memory: 1 block(s) leaked, 100 bytes\n")
        << report;
  }
}

// A command line longer than the tracer keeps (32 KiB) is cut after a whole argument, and says so.
TEST(TraceEnd, LongCommandLineIsCutAfterAWholeArgument) {
  const ScratchDir out;
  const auto r =
      run_command(bin("rtrace") + " record --format sp-rtrace -q -o " + quote(out.path()) + " -x " +
                  quote(RTRACE_TRACE_END_PROGRAM) + " exit $(seq 1 10000)");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<fs::path> files = files_in(out.path());
  ASSERT_EQ(files.size(), 1U);
  const std::string head = report_head(files[0]);
  // (No std::regex over the 32 KiB line: libstdc++'s recursion overflows the stack.)
  const std::string start = "\ncommand line: " + program() + " exit 1 2 3 ";
  const std::string end = " ... (cut)\n";
  const std::size_t from = head.find(start);
  const std::size_t to = head.find(end);
  ASSERT_TRUE(from != std::string::npos && to != std::string::npos && to > from)
      << head.substr(0, 300);
  // Arguments 4 to N, whole and in order, N about 32 KiB / 5 bytes.
  std::istringstream numbers(head.substr(from + start.size(), to - from - start.size()));
  int expected = 4;
  int number = 0;
  while (numbers >> number) {
    ASSERT_EQ(number, expected++);
  }
  EXPECT_GT(number, 6000);
  EXPECT_LT(number, 10000);
}

// SIGKILL once the control thread has written out after the allocations (two passes of its
// loop, every 10 ms or so): the trace holds them all, and everything that reads it says it broke
// off. Through the recorder and in managed mode (-m, the process writes its own file), in both
// formats.
TEST(TraceEnd, KilledProgramLeavesATraceThatSaysItIsIncomplete) {
  for (const auto& [format, extra] : {std::pair<std::string, std::string>{"sp-rtrace", ""},
                                      {"sp-rtrace", "-m"},
                                      {"compact", ""},
                                      {"compact", "-m"}}) {
    SCOPED_TRACE(format + " " + extra);
    const ScratchDir out;
    const Recorded r = record(out, "kill", extra, format);
    EXPECT_EQ(r.status, 128 + 9) << extra << r.err;
    if (extra.empty()) {
      EXPECT_NE(r.err.find("rtrace: " + r.trace.string() + ": warning: " + kIncomplete + "\n"),
                std::string::npos)
          << r.err;
    }
    const std::string head = report_head(r.trace);
    EXPECT_EQ(head.substr(head.find('\n') + 1, kIncomplete.size() + 1), kIncomplete + "\n") << head;
    EXPECT_NE(head.find("\ncommand line: " + program() +
                        " kill 'two words'\n"
                        "peak RSS: not recorded (the trace broke off before its end record)\n"),
              std::string::npos)
        << head;
    // Every call made before the kill is in the trace: malloc and free of the 8 MiB and of the
    // 50 bytes, malloc of the 100 bytes, still held.
    EXPECT_TRUE(head.substr(0, head.find('\n')).ends_with("), 5 calls")) << head;
    const std::string report = run_command(bin("rtrace") + " report " + quote(r.trace)).out;
    EXPECT_EQ(section_start(report, "LEAKS"), "LEAKS\n  memory: 1 block(s) leaked, 100 bytes\n")
        << report;
    const auto leaks = run_command(bin("rtrace") + " process -l -i " + quote(r.trace));
    EXPECT_EQ(leaks.status, 0) << leaks.err;
    EXPECT_NE(leaks.err.find(": warning: " + kIncomplete + " (process "), std::string::npos)
        << leaks.err;
    EXPECT_EQ(run_command(bin("rtrace") + " process --strict -l -i " + quote(r.trace)).status, 1);
    const auto json = run_command(bin("rtrace") + " report --json " + quote(r.trace));
    EXPECT_NE(
        json.out.find("\"incomplete\": true, \"incomplete_message\": \"" + kIncomplete + "\""),
        std::string::npos)
        << json.out.substr(0, 800);
  }
}

// `sp-rtrace` keeps the original protocol: its file holds no RCMD or REND; the recorder still
// knows (from the stream) that a killed program's trace broke off.
TEST(TraceEnd, SpRtraceFilesHoldTheOriginalProtocolOnly) {
  for (const char* mode : {"exit", "kill"}) {
    const ScratchDir out;
    const auto r = run_command(bin("sp-rtrace") + " -s -e memory -o " + quote(out.path()) + " -x " +
                               quote(RTRACE_TRACE_END_PROGRAM) + " " + mode);
    const std::vector<fs::path> files = files_in(out.path());
    ASSERT_EQ(files.size(), 1U) << r.err;
    const std::string bytes = read_file(files[0]);
    EXPECT_EQ(bytes.find("RCMD"), std::string::npos) << mode;
    EXPECT_EQ(bytes.find("REND"), std::string::npos) << mode;
    EXPECT_EQ(r.err.find(kIncomplete) != std::string::npos, std::string(mode) == "kill") << r.err;
    const auto text = run_command(bin("rtrace") + " process -i " + quote(files[0]));
    EXPECT_EQ(text.err, "") << mode;
    EXPECT_EQ(text.out.find("## command line"), std::string::npos) << mode;
  }
}

// Tracing toggled off while the program runs: the trace ends there, and what was allocated then
// is "alive when tracing stopped", not leaked.
TEST(TraceEnd, ToggledOffTraceSaysAliveWhenTracingStopped) {
  const ScratchDir out;
  const fs::path traces = out / "traces";
  fs::create_directory(traces);
  const fs::path fifo = out / "in";
  const fs::path pid = out / "pid";
  const auto r = run_command("mkfifo " + quote(fifo) + " || exit 9; " + bin("rtrace") +
                             " record --format sp-rtrace -q -o " + quote(traces) + " -x " +
                             quote(RTRACE_TRACE_END_PROGRAM) + " wait < " + quote(fifo) + " > " +
                             quote(pid) + " & recorder=$!; exec 3> " + quote(fifo) + "; " +
                             test::shell_wait_for_content(pid, "$recorder") + bin("rtrace") +
                             " record -t $(cat " + quote(pid) + ") && echo go >&3; exec 3>&-; " +
                             "wait $recorder");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<fs::path> files = files_in(traces);
  ASSERT_EQ(files.size(), 1U) << r.err;
  const std::string head = report_head(files[0]);
  EXPECT_NE(head.find("\ncommand line: " + program() +
                      " wait\ntrace ended by: tracing toggled "
                      "off\n"),
            std::string::npos)
      << head;
  without_rss(head);
  const std::string report = run_command(bin("rtrace") + " report " + quote(files[0])).out;
  EXPECT_EQ(section_start(report,
                          "ALIVE WHEN TRACING STOPPED (tracing was toggled off: not known to be "
                          "leaks)"),
            "ALIVE WHEN TRACING STOPPED (tracing was toggled off: not known to be leaks)\n"
            "  memory: 1 block(s) alive when tracing stopped, 100 bytes\n")
      << report;
  EXPECT_EQ(report.find("\nLEAKS\n"), std::string::npos) << report;
  const auto html_path = out / "report.html";
  const auto html =
      run_command(bin("rtrace") + " report --html " + quote(html_path) + " " + quote(files[0]));
  ASSERT_EQ(html.status, 0) << html.err;
  EXPECT_NE(read_file(html_path).find("\"leaks_are\": \"alive when tracing stopped\""),
            std::string::npos);
}

}  // namespace
}  // namespace rtrace
