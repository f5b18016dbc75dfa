// The file module end to end: real programs traced with librtrace-file.so (alone, and with the
// memory module in either order), through `rtrace record` and in managed mode; what they record
// is compared with the original's traces of the same program (fixtures/sp-rtrace/fd) and with
// what the programs say they did.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_paths.h"
#include "trace_decoder.h"

namespace rtrace::test {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

std::string quote(const fs::path& p) {
  return "'" + p.string() + "'";
}
std::string bin(const std::string& name) {
  return quote(build_dir() / "bin" / name);
}
std::string program(const std::string& name) {
  return std::string(RTRACE_TRACER_PROGRAMS) + "/" + name;
}
// A module by alias (built with the tracer) or by path (the tests' own).
std::string lib(const std::string& module) {
  if (module.find('/') != std::string::npos) {
    return module;
  }
  return std::string(RTRACE_TRACER_LIBS) + "/librtrace-" + module + ".so";
}

// The only file in `dir`.
fs::path only_file(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    files.push_back(entry.path());
  }
  EXPECT_EQ(files.size(), 1U);
  return files.empty() ? fs::path{} : files.front();
}

// Runs `command` with the tracer preloaded in managed mode (main first, then `modules`); decodes
// the one trace it wrote.
TraceDecoder trace_managed(const ScratchDir& scratch, const std::vector<std::string>& modules,
                           const std::string& command, CommandResult& result,
                           const std::string& options = "") {
  std::string preload = lib("main");
  for (const auto& module : modules) {
    preload += ":" + lib(module);
  }
  fs::create_directories(scratch / "out");
  result = run_command("LD_PRELOAD=" + preload + " RTRACE_OPTIONS='start=1,managed=" +
                       (scratch / "out").string() + options + "' " + command);
  TraceDecoder trace = decode_file(only_file(scratch / "out").string());
  EXPECT_TRUE(trace.complete()) << trace.error();
  return trace;
}

// One call line of the text protocol and its argument lines, without what changes from run to
// run: "open<fd>(1) $path=/tmp/sp_rtrace_fd_test.txt $flags=0x241", "close<fd>(free)".
// Records of other types than `types` are left out.
std::vector<std::string> records(const std::string& text, const std::set<std::string>& types) {
  static const std::regex call(
      R"(^\d+\. (?:@[0-9a-f]+ )?(?:\[[0-9:.]+\] )?([^<(]+)(?:<(\w+)>)?\(([0-9a-fx]+)\)( = 0x[0-9a-f]+)?$)");
  static const std::regex argument(R"(^\t\$(\w+) = (.*)$)");
  std::vector<std::string> found;
  std::istringstream lines(text);
  std::string line;
  std::smatch m;
  bool keep = false;
  while (std::getline(lines, line)) {
    if (std::regex_match(line, m, call)) {
      keep = types.count(m[2].str()) != 0;
      if (keep) {
        const bool allocation = m[4].matched;
        found.push_back(m[1].str() + "<" + m[2].str() + ">(" +
                        (allocation ? m[3].str() : std::string("free")) + ")");
      }
    } else if (keep && std::regex_match(line, m, argument)) {
      // Descriptor numbers differ with what the tracer itself holds open.
      found.back() += " $" + m[1].str() + "=" + (m[1] == "oldfd" ? "N" : m[2].str());
    }
  }
  return found;
}

// The fd and fp records (see records()), then the `# ` summary lines.
std::vector<std::string> leaks_and_summaries(const std::string& text) {
  std::vector<std::string> found = records(text, {"fd", "fp"});
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.starts_with("# ")) {
      found.push_back(line);
    }
  }
  return found;
}

// Records the fixtures' fd program with `rtrace record -e <modules>`; returns the trace's path.
fs::path record_fd_program(const ScratchDir& out, const std::string& modules) {
  const auto r = run_command(bin("rtrace") + " record -s -e " + modules + " -o " +
                             quote(out.path()) + " -x " + quote(RTRACE_FD_PROGRAM));
  EXPECT_EQ(r.status, 0) << r.err;
  return only_file(out.path());
}

std::string process(const std::string& options, const fs::path& trace) {
  const auto r = run_command(bin("rtrace") + " process " + options + " -i " + quote(trace));
  EXPECT_EQ(r.status, 0) << r.err;
  return r.out;
}

// A release is one fixed record in the thread's ring (release_record.h) that the drain expands:
// by default it carries no backtrace; under free-backtraces=1 every close, fclose, ... carries
// the backtrace unwound into the record, starting in the program that called it.
TEST(FileModule, ReleasesCarryABacktraceOnlyUnderFreeBacktraces) {
  for (const std::string options : {"", ",free-backtraces=1"}) {
    SCOPED_TRACE(options);
    const ScratchDir scratch;
    CommandResult result;
    const TraceDecoder trace = trace_managed(
        scratch, {"file"}, program("file_calls") + " " + quote(scratch.path()), result, options);
    ASSERT_EQ(result.status, 0) << result.err;
    std::size_t releases = 0;
    for (const DecodedCall& call : trace.calls) {
      if (call.kind != 1) {
        continue;
      }
      ++releases;
      if (options.empty()) {
        EXPECT_TRUE(call.frames.empty()) << call.name;
      } else {
        EXPECT_TRUE(frame0_in(trace, call, program("file_calls"))) << call.name;
      }
    }
    EXPECT_GE(releases, 20U);
  }
}

// Both in one test: the program writes fixed paths in /tmp (it is the original's, unchanged), so
// two runs must not overlap.
TEST(FileModule, FixtureProgramGivesTheOriginalsRecordsAndLeaks) {
  RTRACE_NEEDS_FIXTURES();
  const auto original = read_file(fixture("sp-rtrace/fd/fd.txt"));
  const auto original_records = records(original, {"fd", "fp"});
  ASSERT_EQ(original_records.size(), 20U);
  const auto original_leaks = leaks_and_summaries(read_file(fixture("sp-rtrace/fd/fd.l.txt")));
  ASSERT_EQ(original_leaks.size(), 7U);  // 3 leaks, 2 summaries of 2 lines

  // "memory -e file": -e given twice, as "memory:file".
  for (const std::string modules : {"file", "file:memory", "memory:file", "memory -e file"}) {
    SCOPED_TRACE(modules);
    const ScratchDir out;
    const fs::path trace = record_fd_program(out, modules);
    const std::string text = process("", trace);
    EXPECT_EQ(records(text, {"fd", "fp"}), original_records) << text;
    // -R selects the file module's two types whatever their ids (file first: 1 and 2).
    const std::string select = modules == "file" ? "" : modules == "file:memory" ? "-R 3" : "-R 6";
    EXPECT_EQ(leaks_and_summaries(process("-l " + select, trace)), original_leaks);
    if (modules == "file") {
      // The registry as the original writes it: the module twice, then fd and fp.
      EXPECT_NE(text.find("## tracing module: [0] main (1.0)\n## tracing module: [1] file (1.0)\n"
                          "## tracing module: [2] file (1.0)\n<1> : fd (file descriptor)\n"
                          "<2> : fp (file pointer)\n"),
                std::string::npos)
          << text;
    }
  }
}

TEST(FileModule, WithTheMemoryModuleFopensAllocationsAreMemoryRecords) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir out;
  const std::string text = process("", record_fd_program(out, "file:memory"));
  EXPECT_NE(text.find("<1> : fd (file descriptor)\n<2> : fp (file pointer)\n"
                      "<4> : memory (memory allocation in bytes)\n"),
            std::string::npos)
      << text;
  // fopen's FILE (malloc'd inside fopen) is a memory record of its own, before fopen's record;
  // fclose frees it after its own release.
  const auto all = records(text, {"fd", "fp", "memory"});
  int fopens = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].starts_with("fopen<fp>")) {
      ++fopens;
      ASSERT_GT(i, 0U);
      EXPECT_THAT(all[i - 1], ::testing::StartsWith("malloc<memory>(")) << text;
    }
    if (all[i].starts_with("fclose<fp>")) {
      ASSERT_LT(i + 1, all.size());
      EXPECT_THAT(all[i + 1], ::testing::StartsWith("free<memory>(free)")) << text;
    }
  }
  EXPECT_EQ(fopens, 2);
}

// "name(size) = 0xid" / "name(0xid)" with the type and the arguments, as the test expects them.
std::string describe(const DecodedCall& call) {
  std::ostringstream out;
  out << (call.resource_type == 1 ? "fd " : "fp ") << call.name;
  if (call.kind == 2) {
    out << "(" << call.size << ") = 0x" << std::hex << call.id;
  } else {
    out << "(0x" << std::hex << call.id << ")";
  }
  for (const auto& [name, value] : call.args) {
    out << " " << name << "=" << value;
  }
  return out.str();
}

// The `key=value` lines a program printed.
std::string printed(const std::string& output, const std::string& key) {
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.starts_with(key + "=")) {
      return line.substr(key.size() + 1);
    }
  }
  ADD_FAILURE() << key << " not printed in " << output;
  return {};
}

TEST(FileModule, EveryFunctionIsRecordedExactly) {
  const ScratchDir scratch;
  CommandResult result;
  const TraceDecoder trace =
      trace_managed(scratch, {"file"}, program("file_calls") + " " + quote(scratch.path()), result);
  ASSERT_EQ(result.status, 0) << result.err;
  const std::string& out = result.out;
  const auto fd = [&](const std::string& key) {
    std::ostringstream hex;
    hex << "0x" << std::hex << std::stol(printed(out, key));
    return hex.str();
  };
  const auto fp = [&](const std::string& key) { return printed(out, key); };
  const std::string dir = scratch.path().string();
  const std::string file = dir + "/file.txt";
  const std::string created = dir + "/created.txt";
  std::vector<std::string> described;
  for (const auto& call : trace.calls) {
    described.push_back(describe(call));
  }
  const std::vector<std::string> expected = {
      "fd open(1) = " + fd("open") + " path=" + file + " flags=0x241",
      "fd open64(1) = " + fd("open64") + " path=" + file + " flags=0x0",
      "fd openat(1) = " + fd("openat") + " path=" + file + " flags=0x0",
      "fd openat64(1) = " + fd("openat64") + " path=" + file + " flags=0x0",
      "fd creat(1) = " + fd("creat") + " path=" + created + " mode=0x1a4",
      "fd creat64(1) = " + fd("creat64") + " path=" + created + " mode=0x180",
      "fd dup(1) = " + fd("dup") + " oldfd=" + printed(out, "open") + " type=file",
      "fd dup2(0x64)",
      "fd dup2(1) = 0x64 oldfd=" + printed(out, "open") + " type=file",
      "fd dup3(0x65)",
      "fd dup3(1) = 0x65 oldfd=" + printed(out, "open") + " type=file",
      "fd dup2(0x65)",
      "fd dup2(1) = 0x65 oldfd=" + printed(out, "open64") + " type=file",
      "fd fcntl(1) = " + fd("fcntl") + " oldfd=" + printed(out, "open") + " type=file",
      "fd fcntl(1) = " + fd("fcntl_cloexec") + " oldfd=" + printed(out, "open") + " type=file",
      "fd pipe(1) = " + fd("pipe0"),
      "fd pipe(1) = " + fd("pipe1"),
      "fd pipe2(1) = " + fd("pipe2_0") + " flags=0x80000",
      "fd pipe2(1) = " + fd("pipe2_1") + " flags=0x80000",
      "fd socket(1) = " + fd("socket") + " domain=0x1 type=0x1 protocol=0x0",
      "fd socketpair(1) = " + fd("pair0") + " domain=0x1 type=0x2 protocol=0x0",
      "fd socketpair(1) = " + fd("pair1") + " domain=0x1 type=0x2 protocol=0x0",
      "fd socket(1) = " + fd("client") + " domain=0x1 type=0x1 protocol=0x0",
      "fd accept(1) = " + fd("accept"),
      "fd socket(1) = " + fd("client2") + " domain=0x1 type=0x1 protocol=0x0",
      "fd accept4(1) = " + fd("accept4"),
      "fd eventfd(1) = " + fd("eventfd"),
      "fd signalfd(1) = " + fd("signalfd"),
      "fd timerfd_create(1) = " + fd("timerfd"),
      "fd epoll_create(1) = " + fd("epoll"),
      "fd epoll_create1(1) = " + fd("epoll1"),
      "fd inotify_init(1) = " + fd("inotify"),
      "fd inotify_init1(1) = " + fd("inotify1"),
      "fd memfd_create(1) = " + fd("memfd") + " name=rtrace flags=0x0",
  };
  std::vector<std::string> all = expected;
  for (const std::string key :
       {"open64",  "openat",  "openat64", "creat",         "creat64",  "dup",
        "dup2",    "onto",    "fcntl",    "fcntl_cloexec", "pipe0",    "pipe1",
        "pipe2_0", "pipe2_1", "socket",   "pair0",         "pair1",    "client",
        "accept",  "client2", "accept4",  "eventfd",       "signalfd", "timerfd",
        "epoll",   "epoll1",  "inotify",  "inotify1",      "memfd"}) {
    all.push_back("fd close(" + fd(key) + ")");
  }
  // close_range releases what it closes in ascending order.
  std::string low_pt = "posix_openpt";
  std::string high_pt = "getpt";
  if (std::stol(printed(out, high_pt)) < std::stol(printed(out, low_pt))) {
    std::swap(low_pt, high_pt);
  }
  for (const std::string& range : std::vector<std::string>{
           "fd posix_openpt(1) = " + fd("posix_openpt") + " flags=0x102",
           "fd getpt(1) = " + fd("getpt"),
           "fd close_range(" + fd(low_pt) + ")",
           "fd close_range(" + fd(high_pt) + ")",
           "fd fcntl(1) = 0x258 oldfd=" + printed(out, "open") + " type=file",
           "fd fcntl(1) = 0x2bc oldfd=" + printed(out, "open") + " type=file",
           "fd close_range(0x258)",  // closefrom: close_range around the trace connection
           "fd close_range(0x2bc)",
       }) {
    all.push_back(range);
  }
  for (const std::string& stream : std::vector<std::string>{
           "fp fopen(1) = " + fp("fopen") + " path=" + file + " mode=r",
           "fp fopen64(1) = " + fp("fopen64") + " path=" + file + " mode=r",
           "fd fdopen(" + fd("open") + ")",
           "fp fdopen(1) = " + fp("fdopen") + " fd=" + printed(out, "open") + " mode=w",
           "fp freopen(" + fp("fopen") + ")",
           "fp freopen(1) = " + fp("freopen") + " path=" + created + " mode=r",
           "fp tmpfile(1) = " + fp("tmpfile"),
           "fp popen(1) = " + fp("popen") + " command=exit 0 mode=r",
           "fp fmemopen(1) = " + fp("fmemopen") + " mode=r",
           "fp open_memstream(1) = " + fp("memstream"),
           "fp fclose(" + fp("freopen") + ")",
           "fp fclose(" + fp("fopen64") + ")",
           "fp fclose(" + fp("fdopen") + ")",
           "fp fclose(" + fp("tmpfile") + ")",
           "fp pclose(" + fp("popen") + ")",
           "fp fclose(" + fp("fmemopen") + ")",
           "fp fclose(" + fp("memstream") + ")",
           "fp fcloseall(0xffffffffffffffff)",
       }) {
    all.push_back(stream);
  }
  EXPECT_THAT(described, ElementsAreArray(all));
  EXPECT_THAT(trace.resources, ElementsAre("1 0 fd (file descriptor)", "2 0 fp (file pointer)"));
  // Releases of ids nobody had: dup2 and dup3 onto closed numbers (recorded as the original
  // does) and fcloseall's id.
  EXPECT_EQ(trace.leaks.false_frees(), 3U);
}

TEST(FileModule, ThreadsOpeningAndClosingGiveExactLeaks) {
  const ScratchDir scratch;
  CommandResult result;
  const TraceDecoder trace = trace_managed(scratch, {"file"}, program("file_threads"), result);
  ASSERT_EQ(result.status, 0) << result.err;
  std::set<std::uint64_t> leaked;
  std::istringstream words(result.out);
  std::string word;
  while (words >> word) {
    leaked.insert(std::stoull(word.substr(word.find('=') + 1)));
  }
  ASSERT_EQ(leaked.size(), 16U) << result.out;
  EXPECT_EQ(trace.call_count, 8U * (2000 * 8 + 2));  // open, pipe (2), dup, 4 closes
  EXPECT_EQ(trace.leaks.false_frees(), 0U);
  EXPECT_EQ(trace.leaks.double_allocations(), 0U);
  std::set<std::uint64_t> live;
  for (const auto& [id, size] : trace.leaks.live()) {
    live.insert(id);
    EXPECT_EQ(size, 1U);
  }
  EXPECT_EQ(live, leaked);
}

// Another module wrapping close (tests/tracer/modules/probe_module.cpp, as shmposix does), before
// or after the file module: every close the program makes is recorded once by each, in the order
// their wrappers run (the outer release is in place while the inner runs), a failed one by none.
TEST(FileModule, ComposesWithAnotherModuleWrappingClose) {
  const std::string probe = program("librtrace-probe.so");
  for (const bool file_first : {true, false}) {
    SCOPED_TRACE(file_first ? "file:probe" : "probe:file");
    const ScratchDir scratch;
    CommandResult result;
    const std::vector<std::string> modules = file_first ? std::vector<std::string>{"file", probe}
                                                        : std::vector<std::string>{probe, "file"};
    const TraceDecoder trace = trace_managed(
        scratch, modules, program("file_calls") + " " + quote(scratch.path()), result);
    ASSERT_EQ(result.status, 0) << result.err;
    const std::string fd = "fd (file descriptor)";
    const std::string fp = "fp (file pointer)";
    const std::string closed = "closed (descriptor closed, seen by the probe)";
    if (file_first) {
      EXPECT_THAT(trace.resources, ElementsAre("1 0 " + fd, "2 0 " + fp, "3 0 " + closed));
    } else {
      EXPECT_THAT(trace.resources, ElementsAre("1 0 " + closed, "2 0 " + fd, "3 0 " + fp));
    }
    std::vector<std::string> closes;
    for (const auto& call : trace.calls) {
      if (call.name == "close" || call.name == "probe-close" || call.name == "close_range") {
        closes.push_back(call.name + " " + std::to_string(call.id));
      }
    }
    // close_range (and closefrom, made close_range) closes each descriptor through the next close:
    // a module preloaded after the file module sees those closes too, one preloaded before it does
    // not.
    const std::size_t ranged = 4;
    const std::size_t pairs = file_first ? 29 + ranged : 29;
    ASSERT_EQ(closes.size(), 2 * pairs + (file_first ? 0 : ranged))
        << ::testing::PrintToString(closes);
    for (std::size_t i = 0; i < 2 * pairs; i += 2) {
      const std::string id = closes[i].substr(closes[i].find(' ') + 1);
      const std::string file_name = closes[file_first ? i : i + 1];
      EXPECT_EQ(closes[file_first ? i + 1 : i], "probe-close " + id);
      EXPECT_EQ(file_name.substr(file_name.find(' ') + 1), id);
      EXPECT_EQ(file_name.starts_with("close"), true) << file_name;
    }
    for (std::size_t i = 2 * pairs; i < closes.size(); ++i) {
      EXPECT_TRUE(closes[i].starts_with("close_range ")) << closes[i];
    }
  }
}

// The report speaks of what the sizes count: descriptors and streams, not bytes.
TEST(FileModule, ReportCountsDescriptorsAndStreams) {
  RTRACE_NEEDS_FIXTURES();
  const auto r = run_command(bin("rtrace") + " report --no-resolve -i " +
                             quote(fixture("sp-rtrace/fd/fd.raw")));
  ASSERT_EQ(r.status, 0) << r.err;
  // Descriptors and streams have size 1: counted, never weighed in bytes.
  const std::string fd_totals =
      "  fd (file descriptor): 17 calls, 9 allocations, 8 releases, 3 temporary\n";
  for (const std::string& line : std::vector<std::string>{
           fd_totals, "  fp (file pointer): 3 calls, 2 allocations, 1 releases, 1 temporary\n",
           "  fd: 3 descriptor(s) alive after call 4, in the trace's first millisecond\n",
           "  fd: 2 descriptor(s) leaked\n", "  fp: 1 stream(s) leaked\n",
           "    1 stream(s) of fp from:\n"}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line << r.out;
  }
}

// Both front ends list the module with what it traces.
TEST(FileModule, ListedWithItsDescription) {
  for (const std::string& command : {bin("rtrace") + " record -l", bin("sp-rtrace") + " -l"}) {
    const auto r = run_command(command);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("\nfile        librtrace-file.so        file descriptors (open, dup, "),
              std::string::npos)
        << r.out;
  }
}

}  // namespace
}  // namespace rtrace::test
