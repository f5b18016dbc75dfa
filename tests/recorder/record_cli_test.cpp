// `rtrace record` and `sp-rtrace` as a user runs them, with real processes, sockets and files.
// The traced program is fake_traced: it speaks the tracer's side of the interface (connect to
// RTRACE_SOCKET, send a binary trace) with the original tracer's memory.raw under its own pid.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "io/progress.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

namespace fs = std::filesystem;
using test::fixture;
using test::read_file;
using test::run_command;
using test::ScratchDir;

std::string quote(const fs::path& p) {
  return "'" + p.string() + "'";
}
std::string bin(const std::string& name) {
  return quote(test::build_dir() / "bin" / name);
}

// The recorder run with the stand-in tracer libraries.
std::string record(const std::string& tool = "rtrace record") {
  const std::string exe = tool == "sp-rtrace" ? bin("sp-rtrace") : bin("rtrace") + " record";
  return "RTRACE_LIBDIR=" + quote(RTRACE_FAKE_LIBDIR) + " " + exe;
}
std::string fake(const std::string& mode) {
  return quote(RTRACE_FAKE_TRACED) + " " + mode + " " +
         quote(fixture("sp-rtrace/memory/memory.raw"));
}

// memory.raw as process `pid` sends it.
std::string raw_from(std::uint32_t pid) {
  std::string raw = read_file(fixture("sp-rtrace/memory/memory.raw"));
  std::memcpy(&raw[raw.find("PINF") + 8], &pid, sizeof(pid));
  return raw;
}

// The files in `dir`, by name.
std::map<std::string, std::string> files_in(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    files[entry.path().filename().string()] = read_file(entry.path());
  }
  return files;
}

std::vector<std::uint32_t> pids_printed(const std::string& out) {
  std::vector<std::uint32_t> pids;
  std::istringstream in(out);
  std::uint32_t pid = 0;
  while (in >> pid) {
    pids.push_back(pid);
  }
  return pids;
}

// The name `tool` gives the n-th trace (from 0) of process `pid`: rtrace record names it after
// the program as the trace's PINF packet calls it (memory.raw's says ./memory), sp-rtrace as the
// original did.
std::string name(const std::string& tool, std::uint32_t pid, int n,
                 const std::string& suffix = ".rtrace") {
  if (tool == "sp-rtrace") {
    return std::to_string(pid) + "-" + std::to_string(n) + suffix;
  }
  return "memory." + std::to_string(pid) + (n == 0 ? "" : "." + std::to_string(n)) + suffix;
}

// The pid in a name rtrace record gave: memory.PID.rtrace.
std::uint32_t pid_in_name(const std::string& file) {
  const std::size_t first = file.find('.');
  return std::stoul(file.substr(first + 1, file.find('.', first + 1) - first - 1));
}

TEST(RecordCli, KeepsTheBinaryStreamNamedAfterTheProgramOrAsPidDashN) {
  RTRACE_NEEDS_FIXTURES();
  for (const char* tool : {"rtrace record", "sp-rtrace"}) {
    const ScratchDir out;
    const auto r =
        run_command(record(tool) + " -s -e memory -o " + quote(out.path()) + " -x " + fake("send"));
    ASSERT_EQ(r.status, 0) << tool << ": " << r.err;
    const std::vector<std::uint32_t> pids = pids_printed(r.out);
    ASSERT_EQ(pids.size(), 1U);
    const auto files = files_in(out.path());
    ASSERT_EQ(files.size(), 1U) << tool;
    ASSERT_TRUE(files.contains(name(tool, pids[0], 0))) << files.begin()->first;
    EXPECT_EQ(files.at(name(tool, pids[0], 0)), raw_from(pids[0]));
    const std::string size = progress_bytes(static_cast<double>(raw_from(pids[0]).size()));
    EXPECT_EQ(r.err, "rtrace: trace " + (out.path() / name(tool, pids[0], 0)).string() + ", " +
                         size + "\n");
  }
}

// Without -P, "-o stdout" means the default place too, as in the original.
TEST(RecordCli, DefaultOutputIsTheCurrentDirectory) {
  RTRACE_NEEDS_FIXTURES();
  for (const char* where : {"", " -o stdout"}) {
    const ScratchDir out;
    const auto r = run_command("cd " + quote(out.path()) + " && " + record() + " -q -s" + where +
                               " -x " + fake("send"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    const std::vector<std::uint32_t> pids = pids_printed(r.out);
    ASSERT_EQ(pids.size(), 1U);
    EXPECT_EQ(files_in(out.path()).at(name("rtrace record", pids[0], 0)), raw_from(pids[0]));
  }
}

TEST(RecordCli, NeverOverwritesAndNumbersOnePidsTraces) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir out;
  const auto r = run_command(record() + " -q -o " + quote(out.path()) + " -x " + fake("twice"));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto files = files_in(out.path());
  ASSERT_EQ(files.size(), 2U);
  const std::uint32_t pid = pid_in_name(files.begin()->first);
  EXPECT_EQ(files.at(name("rtrace record", pid, 0)), raw_from(pid));
  EXPECT_EQ(files.at(name("rtrace record", pid, 1)), raw_from(pid));
}

TEST(RecordCli, ServesSeveralProcessesAtOnce) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir out;
  const auto r = run_command(record() + " -q -f -o " + quote(out.path()) + " -x " + fake("fork"));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::uint32_t> pids = pids_printed(r.out);
  ASSERT_EQ(pids.size(), 2U);
  const auto files = files_in(out.path());
  ASSERT_EQ(files.size(), 2U);
  for (const std::uint32_t pid : pids) {
    EXPECT_EQ(files.at(name("rtrace record", pid, 0)), raw_from(pid));
  }
}

TEST(RecordCli, WaitsForConnectionsThatOutliveTheProgram) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir out;
  const auto r = run_command(record() + " -q -o " + quote(out.path()) + " -x " + fake("orphan"));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto files = files_in(out.path());
  ASSERT_EQ(files.size(), 1U);
  EXPECT_EQ(files.begin()->second, raw_from(pid_in_name(files.begin()->first)));
}

TEST(RecordCli, KeepsWhatATracerSentBeforeItDied) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir out;
  const auto r =
      run_command(record() + " -q -o " + quote(out.path()) + " -x " + fake("truncate") + " 100");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto files = files_in(out.path());
  ASSERT_EQ(files.size(), 1U);
  const std::string file = files.begin()->first;
  const std::uint32_t pid = pid_in_name(file);
  EXPECT_EQ(file, name("rtrace record", pid, 0));
  EXPECT_EQ(files.begin()->second, raw_from(pid).substr(0, 100));
}

TEST(RecordCli, AnEmptyConnectionLeavesNoFile) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir out;
  const auto r = run_command(record() + " -o " + quote(out.path()) + " -x " + fake("silent"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(files_in(out.path()).empty());
  EXPECT_EQ(r.err, "");
}

TEST(RecordCli, GivesTheTracerItsEnvironment) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir out;
  const ScratchDir scratch;
  const fs::path env = scratch / "env";
  const auto r = run_command("LD_PRELOAD=/usr/lib/x/libpre.so:/y.so " + record("sp-rtrace") +
                             " -q -s -e memory -b 4 -A -T -M 32,64 -B -f -a -S SIGUSR2 -o " +
                             quote(out.path()) + " -x " + fake("env") + " " + quote(env));
  // The preloaded names do not exist: ld.so warns and goes on.
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string lib = RTRACE_FAKE_LIBDIR;
  std::istringstream lines(read_file(env));
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "LD_PRELOAD=" + lib + "/librtrace-main.so:" + lib +
                      "/librtrace-memory.so:/usr/lib/x/libpre.so:/y.so");
  std::getline(lines, line);
  EXPECT_EQ(line,
            "RTRACE_OPTIONS=depth=4,start=1,signal=12,free-backtraces=1,timestamps=0,buffered=0,"
            "follow-forks=1,args=1,sizes=32;64,attachments=" +
                fs::canonical(out.path()).string());
  std::getline(lines, line);
  const std::string socket = line.substr(std::strlen("RTRACE_SOCKET="));
  EXPECT_TRUE(std::regex_match(socket, std::regex("/tmp/rtrace-[A-Za-z0-9]{6}/socket"))) << line;
  std::getline(lines, line);
  EXPECT_EQ(line, "mode=700");
  // The private directory goes away with the recorder.
  EXPECT_FALSE(fs::exists(fs::path(socket).parent_path()));
}

TEST(RecordCli, PrivateDirectoryUnderTmpdir) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir out;
  const ScratchDir tmp;
  const fs::path env = out / "env";
  const auto r = run_command("TMPDIR=" + quote(tmp.path()) + " " + record() + " -q -o " +
                             quote(out.path()) + " -x " + fake("env") + " " + quote(env));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(read_file(env).find("RTRACE_SOCKET=" + tmp.path().string() + "/rtrace-"),
            std::string::npos);
  EXPECT_TRUE(fs::is_empty(tmp.path()));
}

TEST(RecordCli, ManagedModeLeavesTheFilesToTheProcess) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir out;
  const fs::path env = out / "env";
  const auto r = run_command("cd " + quote(out.path()) + " && " + record() + " -m -o . -x " +
                             fake("env") + " " + quote(env));
  // No socket: the stand-in cannot send (exit 20), which shows RTRACE_SOCKET is gone.
  EXPECT_EQ(r.status, 20) << r.err;
  EXPECT_NE(read_file(env).find(
                "RTRACE_OPTIONS=depth=64,start=1,signal=10,free-backtraces=0,"
                "timestamps=1,buffered=1,follow-forks=0,args=0,compact=1,compress=1,managed=" +
                fs::canonical(out.path()).string() + "\n"),
            std::string::npos)
      << read_file(env);
  EXPECT_NE(read_file(env).find("RTRACE_SOCKET=<unset>"), std::string::npos);
}

TEST(RecordCli, ExitStatusIsTheProgramsOrTellsWhatWentWrong) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir out;
  const std::string o = " -o " + quote(out.path());
  EXPECT_EQ(run_command(record() + o + " -x " + fake("exit")).status, 7);
  EXPECT_EQ(run_command(record() + o + " -x sh -c 'kill -TERM $$'").status, 128 + 15);

  auto r = run_command(record() + o + " -x /nonexistent/program");
  EXPECT_EQ(r.status, 127);
  EXPECT_EQ(r.err, "rtrace: /nonexistent/program: No such file or directory\n");

  r = run_command(record() + o + " -e nosuch -x true");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown tracing module 'nosuch'"), std::string::npos) << r.err;
  r = run_command(record() + o + " -e memory,file -x true");  // what separates them is said
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown tracing module 'memory,file' (no "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("; modules are separated by ':', as memory:file; -l lists the modules)"),
            std::string::npos)
      << r.err;

  r = run_command("RTRACE_LIBDIR=" + quote(out.path()) + " " + bin("rtrace") + " record -x true");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("librtrace-main.so does not exist"), std::string::npos) << r.err;

  // A name in an existing directory is a file name pattern; a missing directory is an error.
  r = run_command(record() + " -o " + quote(out / "missing/") + " -x true");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("missing/: no such directory"), std::string::npos) << r.err;

  EXPECT_EQ(run_command(record() + o + " -M 1,x -x true").status, 2);
  EXPECT_EQ(run_command(record() + o + " -S SIGNOPE -x true").status, 2);
  EXPECT_EQ(run_command(record() + o + " -b 5000 -x true").status, 2);
  EXPECT_EQ(run_command(record() + o + " -P '-z' -x true").status, 2);
  EXPECT_EQ(run_command(record() + o + " -m -P '-l' -x true").status, 2);
  EXPECT_EQ(run_command(record() + o).status, 2);
  EXPECT_TRUE(files_in(out.path()).empty());
}

TEST(RecordCli, ListsTheModules) {
  for (const char* tool : {"rtrace record", "sp-rtrace"}) {
    const auto r = run_command(record(tool) + " -l");
    ASSERT_EQ(r.status, 0) << r.err;
    std::istringstream lines(r.out);
    std::string line;
    std::getline(lines, line);
    EXPECT_EQ(line, "Module      File                     Description");
    std::getline(lines, line);
    EXPECT_TRUE(line.starts_with("main        librtrace-main.so        core: ")) << line;
    std::getline(lines, line);
    EXPECT_TRUE(line.starts_with("memory      librtrace-memory.so      memory: ")) << line;
    std::getline(lines, line);
    EXPECT_EQ(line, std::string("(in ") + RTRACE_FAKE_LIBDIR + ")");
  }
}

TEST(RecordCli, TogglesARunningTracedProcess) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir out;
  const fs::path pid_file = out / "pid";
  // Started without -s, the program waits for the toggle; a second recorder sends it, and then
  // the program is told to go on.
  const auto r = run_command(record() + " -q -o " + quote(out.path()) + " -x " + fake("toggle") +
                             " " + quote(pid_file) + " & recorder=$!; " +
                             test::shell_wait_for_content(pid_file, "$recorder") +
                             record("sp-rtrace") + " -t $(cat " + quote(pid_file) + "); touch " +
                             quote(out / "pid.seen") + "; wait $recorder");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("rtrace: tracing of process "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" is now on\n"), std::string::npos) << r.err;
  const std::uint32_t pid = std::stoul(read_file(pid_file));
  EXPECT_EQ(files_in(out.path()).at(name("rtrace record", pid, 0)), raw_from(pid));
}

TEST(RecordCli, RefusesToToggleAnUntracedProcess) {
  auto r = run_command(record() + " -t $$");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("is not traced"), std::string::npos) << r.err;
  // A pid nobody has (above the kernel's highest, 4194304).
  r = run_command(record() + " -t 4194305");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "rtrace: process 4194305: no such process\n");
}

// The natural pid at hand is the recorder's ($!): it stands for the program it traces.
TEST(RecordCli, TogglesThroughTheRecordersPid) {
  const ScratchDir out;
  const fs::path pid_file = out / "pid";
  const auto r = run_command(
      record() + " -q -o " + quote(out.path()) + " -x " + fake("toggle") + " " + quote(pid_file) +
      " & recorder=$!; " + test::shell_wait_for_content(pid_file, "$recorder") + record() +
      " -t $recorder; touch " + quote(out / "pid.seen") + "; wait $recorder");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::uint32_t pid = std::stoul(read_file(pid_file));
  EXPECT_EQ(r.err, "rtrace: tracing of process " + std::to_string(pid) + " is now on\n");
  EXPECT_EQ(files_in(out.path()).at(name("rtrace record", pid, 0)), raw_from(pid));
}

// rtrace record traces memory from the start with no option, 64 frames deep (10 with --format
// sp-rtrace); --wait starts with tracing off. sp-rtrace keeps the original's defaults: only the
// modules -e names, tracing off until -s, 10 frames.
TEST(RecordCli, DefaultsOfRtraceRecordAndOfSpRtrace) {
  const std::string lib = RTRACE_FAKE_LIBDIR;
  const std::string main_only = "LD_PRELOAD=" + lib + "/librtrace-main.so\n";
  const std::string with_memory =
      "LD_PRELOAD=" + lib + "/librtrace-main.so:" + lib + "/librtrace-memory.so\n";
  const struct {
    std::string command;
    std::string preload;
    std::string start;
    std::string depth;
  } cases[] = {
      {record() + " -q", with_memory, "start=1", "depth=64"},
      {record() + " -q -s", with_memory, "start=1", "depth=64"},
      {record() + " -q --wait", with_memory, "start=0", "depth=64"},
      {record() + " -q -e main", main_only, "start=1", "depth=64"},
      {record() + " -q --format sp-rtrace", with_memory, "start=1", "depth=10"},
      {record("sp-rtrace") + " -q", main_only, "start=0", "depth=10"},
      {record("sp-rtrace") + " -q -s -e memory", with_memory, "start=1", "depth=10"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.command);
    const ScratchDir out;
    const fs::path env = out / "env";
    const auto r = run_command(c.command + " -o " + quote(out.path()) + " -- " + fake("env") + " " +
                               quote(env));
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string text = read_file(env);
    EXPECT_NE(text.find(c.preload), std::string::npos) << text;
    EXPECT_NE(text.find("," + c.start + ","), std::string::npos) << text;
    EXPECT_NE(text.find("RTRACE_OPTIONS=" + c.depth + ","), std::string::npos) << text;
  }
  EXPECT_EQ(run_command(record() + " -s --wait -x true").status, 2);
}

// rtrace record asks the tracer for the compact format unless --format sp-rtrace, compressed
// unless --no-compress or -P; the compatible sp-rtrace command never does.
TEST(RecordCli, FormatReachesTheTracer) {
  RTRACE_NEEDS_FIXTURES();
  const struct {
    std::string command;
    bool compact;
    bool compress;
  } cases[] = {
      {record() + " -q", true, true},
      {record() + " -q --format compact", true, true},
      {record() + " -q --no-compress", true, false},
      {record() + " -q -P '-l'", true, false},  // the recorder makes text of it at once
      {record() + " -q --format sp-rtrace", false, false},
      {record("sp-rtrace") + " -q -s", false, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.command);
    const ScratchDir out;
    const fs::path env = out / "env";
    const auto r = run_command(c.command + " -o " + quote(out.path()) + " -- " + fake("env") + " " +
                               quote(env));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_file(env).find(",compact=1") != std::string::npos, c.compact) << read_file(env);
    EXPECT_EQ(read_file(env).find(",compress=1") != std::string::npos, c.compress)
        << read_file(env);
  }
  const auto bad = run_command(record() + " --format text -x true");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--format"), std::string::npos) << bad.err;
}

// `--` ends the options, in both commands; what follows it is the program's, options or not.
TEST(RecordCli, DoubleDashEndsTheOptions) {
  for (const char* tool : {"rtrace record", "sp-rtrace"}) {
    SCOPED_TRACE(tool);
    const ScratchDir out;
    const auto r = run_command(record(tool) + " -q -s -o " + quote(out.path()) + " -- " +
                               fake("send") + " -x --");
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<std::uint32_t> pids = pids_printed(r.out);
    ASSERT_EQ(pids.size(), 1U);
    EXPECT_EQ(files_in(out.path()).at(name(tool, pids[0], 0)), raw_from(pids[0]));
  }
}

// -P: the stream goes through rtrace process's pipeline in the recorder.
std::string expected_text(const std::string& fixture_name, std::uint32_t pid) {
  std::string text = read_file(fixture("sp-rtrace/memory/" + fixture_name));
  const auto replace = [&](const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
  };
  replace("pid=778, ", "pid=" + std::to_string(pid) + ", ");
  replace("origin=sp-rtrace 1.8, ", "origin=rtrace 0.1.0, ");
  return text;
}

TEST(RecordCli, PostProcessesIntoNamedTextFiles) {
  RTRACE_NEEDS_FIXTURES();
  for (const char* tool : {"rtrace record", "sp-rtrace"}) {
    const ScratchDir out;
    const auto r = run_command(record(tool) + " -s -e memory -P '-l -c' -o " + quote(out.path()) +
                               " -x " + fake("send"));
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<std::uint32_t> pids = pids_printed(r.out);
    ASSERT_EQ(pids.size(), 1U);
    const auto files = files_in(out.path());
    ASSERT_EQ(files.size(), 1U);
    EXPECT_EQ(files.at(name(tool, pids[0], 0, ".rtrace.txt")),
              expected_text("memory.lc.txt", pids[0]));
  }
}

// A tracer that dies in the middle of a packet: the recorder writes what came complete before it,
// exactly as rtrace process does with the same bytes, and warns.
TEST(RecordCli, PostProcessesWhatATracerSentBeforeItDied) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir out;
  const auto r = run_command(record() + " -P '-l' -o " + quote(out.path()) + " -x " +
                             fake("truncate") + " 3001");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto files = files_in(out.path());
  ASSERT_EQ(files.size(), 1U);
  const std::string file = files.begin()->first;
  const std::uint32_t pid = pid_in_name(file);
  EXPECT_EQ(file, name("rtrace record", pid, 0, ".rtrace.txt"));
  EXPECT_NE(r.err.find(">:3000: warning: truncated packet"), std::string::npos) << r.err;

  const ScratchDir offline;
  test::write_file(offline / "cut.rtrace", raw_from(pid).substr(0, 3001));
  const auto expected =
      run_command(bin("rtrace") + " process -l -i " + quote(offline / "cut.rtrace"));
  EXPECT_NE(expected.out.find(") = 0x"), std::string::npos)
      << expected.out;  // calls before the cut
  EXPECT_EQ(files.begin()->second, expected.out);
}

TEST(RecordCli, PostProcessesOntoStandardOutput) {
  RTRACE_NEEDS_FIXTURES();
  for (const char* where : {"", " -o stdout", " -o -"}) {
    const ScratchDir out;
    const auto r = run_command("cd " + quote(out.path()) + " && " + record() + " -q -P ''" + where +
                               " -x " + fake("send") + " >/dev/null");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(files_in(out.path()).empty()) << where;
  }
  // The program's own output and the trace share standard output; the program printed its pid
  // before the trace started.
  const auto r = run_command(record() + " -q -s -P '-l' -x " + fake("send"));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::size_t newline = r.out.find('\n');
  const std::uint32_t pid = std::stoul(r.out.substr(0, newline));
  EXPECT_EQ(r.out.substr(newline + 1), expected_text("memory.l.txt", pid));
}

TEST(RecordCli, PostProcessedTextsOfSeveralProcessesDoNotMix) {
  RTRACE_NEEDS_FIXTURES();
  const auto r = run_command(record() + " -q -P '-l' -o stdout -x " + fake("fork"));
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream in(r.out);
  std::string first_pid;
  std::string second_pid;
  std::getline(in, first_pid);
  std::getline(in, second_pid);
  const std::string texts = r.out.substr(first_pid.size() + second_pid.size() + 2);
  const std::string a = expected_text("memory.l.txt", std::stoul(first_pid));
  const std::string b = expected_text("memory.l.txt", std::stoul(second_pid));
  EXPECT_TRUE(texts == a + b || texts == b + a) << texts;
}

// -o PATTERN: the fields expand per process; the directory is the pattern's.
TEST(RecordCli, NamesTracesAfterAPattern) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir out;
  const auto r = run_command(record() + " -q -f -o " + quote(out / "%n-%p-%h-%t-%%.trace") +
                             " -x " + fake("fork"));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::uint32_t> pids = pids_printed(r.out);
  ASSERT_EQ(pids.size(), 2U);
  const auto files = files_in(out.path());
  ASSERT_EQ(files.size(), 2U);
  std::array<char, 256> host{};
  ASSERT_EQ(::gethostname(host.data(), host.size() - 1), 0);
  for (const std::uint32_t pid : pids) {
    const std::regex expected("memory-" + std::to_string(pid) + "-" + host.data() +
                              R"(-20\d{6}T\d{6}Z-%\.trace)");
    const auto file = std::ranges::find_if(
        files, [&](const auto& entry) { return std::regex_match(entry.first, expected); });
    ASSERT_NE(file, files.end()) << pid << " " << files.begin()->first;
    EXPECT_EQ(file->second, raw_from(pid));
  }
  // One start time for the run: both names carry the same stamp.
  const std::string a = files.begin()->first;
  const std::string b = std::next(files.begin())->first;
  EXPECT_EQ(a.substr(a.size() - 25), b.substr(b.size() - 25));
}

// A name that several traces share (no %p with -f, a second trace of a pid, a file there before)
// gets a number before its suffix, and nothing is ever replaced.
TEST(RecordCli, APatternNeverReplacesAFile) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir out;
  test::write_file(out / "run.rtrace", "keep me");
  const auto r =
      run_command(record() + " -f -o " + quote(out / "run.rtrace") + " -x " + fake("fork"));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::uint32_t> pids = pids_printed(r.out);
  ASSERT_EQ(pids.size(), 2U);
  const auto files = files_in(out.path());
  ASSERT_EQ(files.size(), 3U);
  EXPECT_EQ(files.at("run.rtrace"), "keep me");
  const bool in_order = files.at("run.1.rtrace") == raw_from(pids[0]);
  EXPECT_EQ(files.at("run.1.rtrace"), raw_from(pids[in_order ? 0 : 1]));
  EXPECT_EQ(files.at("run.2.rtrace"), raw_from(pids[in_order ? 1 : 0]));
  EXPECT_NE(r.err.find("rtrace: trace " + (out / "run.2.rtrace").string() + ", "),
            std::string::npos)
      << r.err;
  // Without the trace suffix the number goes at the end.
  const auto again =
      run_command(record() + " -q -o " + quote(out / "plain") + " -x " + fake("twice"));
  ASSERT_EQ(again.status, 0) << again.err;
  const auto after = files_in(out.path());
  EXPECT_TRUE(after.contains("plain")) << after.size();
  EXPECT_TRUE(after.contains("plain.1")) << after.size();
}

TEST(RecordCli, TheSpRtraceFormatKeepsTheOriginalsNames) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir out;
  const auto r = run_command(record() + " -q --format sp-rtrace -o " + quote(out.path()) + " -x " +
                             fake("twice"));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto files = files_in(out.path());
  ASSERT_EQ(files.size(), 2U);
  const std::string first = files.begin()->first;
  const std::uint32_t pid = std::stoul(first.substr(0, first.find('-')));
  EXPECT_EQ(files.at(name("sp-rtrace", pid, 0)), raw_from(pid));
  EXPECT_EQ(files.at(name("sp-rtrace", pid, 1)), raw_from(pid));
}

// What -o cannot be, said before the program starts (exit status 2, nothing created).
TEST(RecordCli, AnOutputThatCannotBeIsRefusedClearly) {
  const ScratchDir out;
  ASSERT_EQ(::mkfifo((out / "fifo").c_str(), 0600), 0);
  const std::string dir = out.path().string();
  const struct {
    std::string options;
    std::string error;
  } cases[] = {
      {"-o " + dir + "/fifo", dir + "/fifo: is a FIFO, not a directory or a file name: the "
                                    "traces are written as new regular files"},
      {"-o /dev/null",
       "/dev/null: is a device, not a directory or a file name: the traces are "
       "written as new regular files"},
      {"-o " + dir + "/missing/%p", dir + "/missing/%p: the directory " + dir +
                                        "/missing does not exist (No such file or directory)"},
      {"-o " + dir + "/fifo/x", dir + "/fifo/x: " + dir + "/fifo is not a directory"},
      {"-o " + dir + "/missing/", dir + "/missing/: no such directory"},
      {"-o " + dir + "/fifo/", dir + "/fifo/: " + dir + "/fifo is a FIFO, not a directory"},
      {"-o " + dir + "/%q",
       "-o " + dir + "/%q: unknown field %q (the fields are %p, %n, %h, %t and %%)"},
      {"-o " + dir + "/x%", "-o " + dir + "/x%: a '%' ends the pattern (%% is a percent sign)"},
      {"-m -o " + dir + "/%p", dir + "/%p: -m writes NAME.PID.rtrace files into a directory, and this "
                                     "is not one (file name patterns need the recorder)"},
      {"-o -",
       "-o -: the binary traces are not written to standard output (the program's output "
       "goes there); -P writes their text to it"},
  };
  for (const auto& c : cases) {
    const auto r =
        run_command(record() + " " + c.options + " -x " + quote(RTRACE_FAKE_TRACED) + " exit");
    EXPECT_EQ(r.status, 2) << c.options;
    EXPECT_EQ(r.out, "") << c.options;
    EXPECT_EQ(r.err, "rtrace: " + c.error + "\n") << c.options;
  }
  // The compatible command's -o is a directory, as the original's.
  const auto compatible = run_command(record("sp-rtrace") + " -o " + dir + "/trace -x " +
                                      quote(RTRACE_FAKE_TRACED) + " exit");
  EXPECT_EQ(compatible.status, 2);
  EXPECT_EQ(compatible.err, "rtrace: " + dir + "/trace: no such directory\n");
  // The FIFO alone (not read: files_in would wait for a writer).
  EXPECT_EQ(std::distance(fs::directory_iterator(out.path()), fs::directory_iterator()), 1);
}

}  // namespace
}  // namespace rtrace
