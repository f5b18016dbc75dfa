// "-" names standard input or standard output for every file every command reads or writes: the
// same output as with a named file, and never a file called "-" (each command runs in an empty
// directory that must stay empty).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/test_paths.h"

namespace rtrace {
namespace {

using test::built_tool;
using test::fixture;
using test::quoted;
using test::run_command;
using test::ScratchDir;

// Runs `command` in an empty directory; checks that it stays empty (no file named "-").
test::CommandResult run_in_empty_directory(const std::string& command) {
  const ScratchDir dir;
  const auto r = run_command("cd " + quoted(dir.path()) + " && " + command);
  EXPECT_TRUE(test::files_in(dir.path()).empty()) << command << " created a file";
  return r;
}

// `with_streams` (using "-") prints exactly what `with_files` prints, and succeeds.
void expect_same_output(const std::string& with_streams, const std::string& with_files) {
  const auto streams = run_in_empty_directory(with_streams);
  const auto files = run_command(with_files);
  ASSERT_EQ(files.status, 0) << with_files << ": " << files.err;
  EXPECT_EQ(streams.status, 0) << with_streams << ": " << streams.err;
  EXPECT_EQ(streams.err, files.err) << with_streams;
  EXPECT_FALSE(streams.out.empty()) << with_streams;
  EXPECT_EQ(streams.out, files.out) << with_streams;
}

std::string rtrace() {
  return built_tool("rtrace");
}

TEST(StandardStreams, Process) {
  RTRACE_NEEDS_FIXTURES();
  const std::string raw = quoted(fixture("sp-rtrace/memory/memory.raw"));
  expect_same_output(rtrace() + " process -i - -o - < " + raw, rtrace() + " process -i " + raw);
  expect_same_output(
      rtrace() + " process --to binary - -o - < " + raw + " | " + rtrace() + " process",
      rtrace() + " process " + raw);
  const ScratchDir lists;
  test::write_file(lists / "calls", "1\n3\n");
  expect_same_output("printf '1\\n3\\n' | " + rtrace() + " process --include - " + raw,
                     rtrace() + " process --include " + quoted(lists / "calls") + " " + raw);
  expect_same_output("printf '1\\n3\\n' | " + rtrace() + " process --exclude - " + raw,
                     rtrace() + " process --exclude " + quoted(lists / "calls") + " " + raw);
}

TEST(StandardStreams, ProcessRefusesToReadStandardInputTwice) {
  RTRACE_NEEDS_FIXTURES();
  const std::string raw = quoted(fixture("sp-rtrace/memory/memory.raw"));
  // Without -i the trace is standard input already.
  for (const std::string option : {"--include", "--suppressions"}) {
    const auto r = run_in_empty_directory(rtrace() + " process -l " + option + " - < " + raw);
    EXPECT_EQ(r.status, 2) << option;
    EXPECT_EQ(r.out, "") << option;
    EXPECT_EQ(r.err,
              "rtrace: standard input ('-') can be read only once, and both the trace "
              "(-i) and " +
                  option + " name it\n");
  }
}

TEST(StandardStreams, CompatiblePostprocAndResolve) {
  RTRACE_NEEDS_FIXTURES();
  const std::string raw = quoted(fixture("sp-rtrace/memory/memory.raw"));
  const std::string text = quoted(fixture("sp-rtrace/memory/memory.lc.txt"));
  expect_same_output(built_tool("sp-rtrace-postproc") + " -i - -o - -l < " + raw,
                     built_tool("sp-rtrace-postproc") + " -i " + raw + " -l");
  expect_same_output(built_tool("sp-rtrace-resolve") + " -i - -o - < " + text,
                     built_tool("sp-rtrace-resolve") + " -i " + text);
}

TEST(StandardStreams, Resolve) {
  RTRACE_NEEDS_FIXTURES();
  const std::string text = quoted(fixture("sp-rtrace/memory/memory.lc.txt"));
  expect_same_output(rtrace() + " resolve -i - -o - < " + text, rtrace() + " resolve " + text);
}

TEST(StandardStreams, Report) {
  RTRACE_NEEDS_FIXTURES();
  const std::string raw = quoted(fixture("sp-rtrace/memory/memory.raw"));
  expect_same_output(rtrace() + " report --no-resolve - < " + raw,
                     rtrace() + " report --no-resolve " + raw);
  expect_same_output(rtrace() + " report --no-resolve --diff - " + raw + " < " + raw,
                     rtrace() + " report --no-resolve --diff " + raw + " " + raw);
  const ScratchDir lists;
  test::write_file(lists / "supp", "leak:main\n");
  expect_same_output(
      "echo leak:main | " + rtrace() + " report --no-resolve --suppressions - " + raw,
      rtrace() + " report --no-resolve --suppressions " + quoted(lists / "supp") + " " + raw);
  const auto html = run_in_empty_directory(rtrace() + " report --no-resolve --html - " + raw);
  EXPECT_EQ(html.status, 0) << html.err;
  EXPECT_TRUE(html.out.starts_with("<!DOCTYPE html>")) << html.out.substr(0, 100);
}

// Standard input read by two of report's files would give one of them nothing: refused, with
// both named.
TEST(StandardStreams, ReportRefusesToReadStandardInputTwice) {
  RTRACE_NEEDS_FIXTURES();
  const std::string raw = quoted(fixture("sp-rtrace/memory/memory.raw"));
  const std::string once = "rtrace: report: standard input ('-') can be read only once, and ";
  const struct {
    std::string arguments;
    std::string error;
  } cases[] = {
      {"- -", once + "TRACE names it twice\n"},
      {"- --diff -", once + "both TRACE and --diff name it\n"},
      {"--suppressions - -", once + "both TRACE and --suppressions name it\n"},
      {"--diff - --suppressions - " + raw, once + "both --diff and --suppressions name it\n"},
      {"--suppressions - --suppressions - " + raw, once + "--suppressions names it twice\n"},
  };
  for (const auto& c : cases) {
    const auto r =
        run_in_empty_directory(rtrace() + " report --no-resolve " + c.arguments + " < " + raw);
    EXPECT_EQ(r.status, 2) << c.arguments;
    EXPECT_EQ(r.out, "") << c.arguments;
    EXPECT_EQ(r.err, c.error) << c.arguments;
  }
}

TEST(StandardStreams, Export) {
  RTRACE_NEEDS_FIXTURES();
  const std::string raw = quoted(fixture("sp-rtrace/memory/memory.raw"));
  for (const char* format : {"folded", "massif", "chrome"}) {
    expect_same_output(rtrace() + " export " + format + " --no-resolve - -o - < " + raw,
                       rtrace() + " export " + format + " --no-resolve " + raw);
  }
}

TEST(StandardStreams, Mptrace) {
  RTRACE_NEEDS_FIXTURES();
  const std::filesystem::path trace = fixture("mpatrol/basic/basic.trace");
  // -H and -s share standard output with the report; the HATF file names itself as -H says.
  const std::string hatf_name = "## Tracename: -\n";
  auto streams = run_in_empty_directory(rtrace() + " mptrace -H - -s - - < " + quoted(trace));
  const auto named = run_command(rtrace() + " mptrace -H stdout -s stdout - < " + quoted(trace));
  ASSERT_EQ(streams.status, 0) << streams.err;
  ASSERT_NE(streams.out.find(hatf_name), std::string::npos) << streams.out;
  streams.out.replace(streams.out.find(hatf_name), hatf_name.size(), "## Tracename: stdout\n");
  EXPECT_EQ(streams.out, named.out);
  expect_same_output(rtrace() + " mptrace - < " + quoted(trace),
                     rtrace() + " mptrace /dev/stdin < " + quoted(trace));
}

TEST(StandardStreams, Stacktrack) {
  RTRACE_NEEDS_FIXTURES();
  const std::string raw = quoted(fixture("stacktrack/sample.raw"));
  const std::string expected = test::read_file(fixture("stacktrack/sample.expand.txt"));
  const auto plain = run_in_empty_directory(rtrace() + " stacktrack expand - < " + raw);
  EXPECT_EQ(plain.status, 0) << plain.err;
  EXPECT_EQ(plain.out, expected);
  const auto layout = run_in_empty_directory(rtrace() + " stacktrack expand --show_format | " +
                                             rtrace() + " stacktrack expand --format - " + raw);
  EXPECT_EQ(layout.status, 0) << layout.err;
  EXPECT_EQ(layout.out, expected);
  const auto twice = run_in_empty_directory(rtrace() + " stacktrack expand --format - - < " + raw);
  EXPECT_EQ(twice.status, 2);
  EXPECT_EQ(twice.err,
            "rtrace: stacktrack expand: standard input ('-') can be read only once, and both "
            "TRACE and --format name it\n");
}

TEST(StandardStreams, Apitrace) {
  RTRACE_NEEDS_FIXTURES();
  const std::string trace = quoted(fixture("apitrace/egl_gles2/egl_gles2.trace"));
  expect_same_output(rtrace() + " apitrace dump --color=never - < " + trace,
                     rtrace() + " apitrace dump --color=never " + trace);
  const ScratchDir lists;
  test::write_file(lists / "calls", "0-3\n20\n");
  expect_same_output(
      "printf '0-3\\n20\\n' | " + rtrace() + " apitrace dump --color=never --calls=@- " + trace,
      rtrace() + " apitrace dump --color=never --calls=@" + quoted(lists / "calls") + " " + trace);
  // info names the trace as given.
  const auto info = run_in_empty_directory(rtrace() + " apitrace info - < " + trace);
  EXPECT_EQ(info.status, 0) << info.err;
  EXPECT_NE(info.out.find("\"FileName\": \"-\","), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("\"ContainerSize\": 50955"), std::string::npos) << info.out;
}

}  // namespace
}  // namespace rtrace
