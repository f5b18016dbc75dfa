// librtrace-shmsysv.so end to end: the original's shmsysv test program (fixtures/sp-rtrace/
// programs/shmsysv.c) recorded by `rtrace record`, alone and beside the memory module in either
// order, gives the records the original tracer wrote for it (fixtures/sp-rtrace/shmsysv/
// shmsysv.raw: names, types, sizes, kinds, arguments and which record refers to which segment or
// address) and the leaks the original post-processor found (shmsysv.l.txt). A threaded program
// attaching and detaching at once gives exact leaks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/ipc.h>
#include <sys/shm.h>

#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_paths.h"
#include "trace_decoder.h"

namespace rtrace::test {
namespace {

namespace fs = std::filesystem;

std::string quote(const fs::path& p) {
  return "'" + p.string() + "'";
}

std::string rtrace_bin() {
  return quote(build_dir() / "bin" / "rtrace");
}

// The only trace file in `dir`.
fs::path only_trace(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    files.push_back(entry.path());
  }
  EXPECT_EQ(files.size(), 1U);
  return files.empty() ? fs::path{} : files.front();
}

// The value printed after `key` (e.g. "leaked segment ") on a line of the program's output.
std::vector<std::string> printed_after(const std::string& output, const std::string& key) {
  std::vector<std::string> values;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.starts_with(key)) {
      values.push_back(line.substr(key.size()));
    }
  }
  return values;
}

// Removes the SysV segments a program left behind on purpose (the "leaks" under test), so that
// the machine does not keep them.
void remove_segments(const std::vector<std::string>& ids) {
  for (const std::string& id : ids) {
    ::shmctl(std::stoi(id), IPC_RMID, nullptr);
  }
}

// A trace's calls in a form that compares across runs: ids become ordinals per resource type in
// order of first appearance (`segment#1`), a `shmid` argument the ordinal of that segment, `cpid`
// whether it is the traced process. Calls of the types in `skip` are left out.
std::vector<std::string> comparable_calls(const TraceDecoder& trace,
                                          const std::vector<std::string>& skip = {}) {
  std::map<std::uint32_t, std::string> type_names;
  for (const std::string& resource : trace.resources) {
    // "id flags type (description)"
    std::istringstream fields(resource);
    std::uint32_t id = 0;
    std::uint32_t flags = 0;
    std::string type;
    fields >> id >> flags >> type;
    type_names[id] = type;
  }
  std::map<std::string, std::map<std::uint64_t, int>> ordinals;
  const auto label = [&](const std::string& type, std::uint64_t id) {
    auto& of_type = ordinals[type];
    const auto [at, added] = of_type.emplace(id, static_cast<int>(of_type.size()) + 1);
    return type + "#" + std::to_string(at->second);
  };
  std::vector<std::string> calls;
  for (const DecodedCall& call : trace.calls) {
    const std::string type = type_names[call.resource_type];
    if (std::find(skip.begin(), skip.end(), type) != skip.end()) {
      continue;
    }
    // The control operation names a segment: the same ordinals.
    const std::string id_type = type == "control" ? "segment" : type;
    std::string text = call.name + "<" + type + ">";
    text += call.kind == 2 ? "(" + std::to_string(call.size) + ") = " + label(id_type, call.id)
                           : "(" + label(id_type, call.id) + ")";
    for (const auto& [name, value] : call.args) {
      std::string shown = value;
      if (name == "shmid") {
        shown = label("segment", std::stoull(value, nullptr, 16));
      } else if (name == "cpid") {
        shown = value == std::to_string(trace.pid) ? "<traced pid>" : "<other pid>";
      }
      text.append(" $").append(name).append("=").append(shown);
    }
    text += call.kind == 2 && !call.frames.empty() ? " +bt" : "";
    calls.push_back(text);
  }
  return calls;
}

// "6. shmget<segment>(8192)" for every call line of a text trace (without the index when
// `with_index` is false), and the `# ` summary lines, in order.
std::vector<std::string> calls_and_summaries(const std::string& text, bool with_index = true) {
  static const std::regex call(
      R"(^(\d+)\. (?:@[0-9a-f]+ )?(?:\[[0-9:.]+\] )?(\w+(?:<\w+>)?)\((\w+)\).*)");
  std::vector<std::string> found;
  std::istringstream lines(text);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_match(line, m, call)) {
      found.push_back((with_index ? m[1].str() + ". " : "") + m[2].str() + "(" + m[3].str() + ")");
    } else if (line.starts_with("# ")) {
      found.push_back(line);
    }
  }
  return found;
}

// The original's leak summary with its one miscount corrected: it prints the first type's
// numbers for the third type ("control"), which never leaks (every shmctl<control> is a
// release). See fixtures/sp-rtrace/MANIFEST.md.
std::vector<std::string> original_leaks(bool with_index) {
  std::vector<std::string> leaks =
      calls_and_summaries(read_file(fixture("sp-rtrace/shmsysv/shmsysv.l.txt")), with_index);
  EXPECT_EQ(leaks.back(), "# 2 block(s) leaked with total size of 20480 bytes");
  leaks.back() = "# 0 block(s) leaked with total size of 0 bytes";
  return leaks;
}

struct Recorded {
  TraceDecoder trace;
  fs::path file;
  std::string output;
};

// Records `program` with `modules` (rtrace record -e), decodes the trace, removes the segments the
// program says it leaked.
Recorded record(const ScratchDir& scratch, const std::string& modules, const std::string& program,
                const std::string& leaked_key) {
  fs::create_directories(scratch / "out");
  const auto run = run_command(rtrace_bin() + " record -q -e " + modules + " -o " +
                               quote(scratch / "out") + " -x " + quote(program));
  EXPECT_EQ(run.status, 0) << run.err;
  remove_segments(printed_after(run.out, leaked_key));
  Recorded recorded;
  recorded.output = run.out;
  recorded.file = only_trace(scratch / "out");
  recorded.trace = decode_file(recorded.file.string());
  EXPECT_TRUE(recorded.trace.complete()) << recorded.trace.error();
  return recorded;
}

std::string leaks_of(const fs::path& trace, const std::string& more_options = "") {
  const auto run =
      run_command(rtrace_bin() + " process -l " + more_options + " -i " + quote(trace));
  EXPECT_EQ(run.status, 0) << run.err;
  return run.out;
}

const std::vector<std::string>& original_calls() {
  static const std::vector<std::string> calls =
      comparable_calls(decode_file(fixture("sp-rtrace/shmsysv/shmsysv.raw").string()));
  return calls;
}

const char* const kShmRegistry[] = {"segment (shared memory segment)",
                                    "address (shared memory attachments)",
                                    "control (shared memory segment control operation)"};

TEST(ShmsysvModule, RecordsWhatTheOriginalRecorded) {
  RTRACE_NEEDS_FIXTURES();
  ASSERT_EQ(original_calls().size(), 11U);
  const ScratchDir scratch;
  const Recorded r = record(scratch, "shmsysv", RTRACE_SHMSYSV_PROGRAM, "leaked segment ");
  EXPECT_THAT(r.trace.resources, ::testing::ElementsAre(std::string("1 1 ") + kShmRegistry[0],
                                                        std::string("2 0 ") + kShmRegistry[1],
                                                        std::string("3 0 ") + kShmRegistry[2]));
  EXPECT_EQ(comparable_calls(r.trace), original_calls());
  // The original's leaks, call indices included (only shm calls in this trace).
  EXPECT_EQ(calls_and_summaries(leaks_of(r.file)), original_leaks(true));
  // The registry lines as the original prints them.
  const std::string text = leaks_of(r.file);
  EXPECT_NE(text.find("<1> : segment (shared memory segment) [refcount]\n<2> : address (shared "
                      "memory attachments)\n<4> : control (shared memory segment control "
                      "operation)\n"),
            std::string::npos)
      << text;
}

// The report counts each type in its own unit: segments and attachments, weighed in bytes;
// control operations only counted.
TEST(ShmsysvModule, ReportNamesTheUnits) {
  RTRACE_NEEDS_FIXTURES();
  const auto run = run_command(rtrace_bin() + " report --no-resolve -i " +
                               quote(fixture("sp-rtrace/shmsysv/shmsysv.raw")));
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("\nLEAKS\n"
                         "  segment: 2 segment(s) leaked, 20480 bytes\n"
                         "  address: 1 attachment(s) leaked, 8192 bytes\n"
                         "  control: 0 operation(s) leaked\n"
                         "    12288 bytes in 1 segment(s) of segment from:\n"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("  control (shared memory segment control operation): 2 calls, 0 "
                         "allocations, 2 releases, 0 temporary\n"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("  segment: 20480 bytes alive after call 11, "), std::string::npos)
      << run.out;
}

// Beside the memory module, in either order: the shm records and leaks do not change (the type
// ids follow the load order); the memory records are the program's own (printf's buffer).
TEST(ShmsysvModule, ComposesWithTheMemoryModuleInEitherOrder) {
  RTRACE_NEEDS_FIXTURES();
  for (const auto& [modules, shm_types] :
       {std::pair<std::string, std::string>{"shmsysv:memory", "7"}, {"memory:shmsysv", "e"}}) {
    SCOPED_TRACE(modules);
    const ScratchDir scratch;
    const Recorded r = record(scratch, modules, RTRACE_SHMSYSV_PROGRAM, "leaked segment ");
    const bool memory_first = modules.starts_with("memory");
    ASSERT_EQ(r.trace.resources.size(), 4U);
    EXPECT_EQ(r.trace.resources[memory_first ? 0 : 3].substr(2),
              "0 memory (memory allocation in bytes)");
    EXPECT_EQ(r.trace.resources[memory_first ? 1 : 0].substr(2),
              std::string("1 ") + kShmRegistry[0]);
    EXPECT_EQ(comparable_calls(r.trace, {"memory"}), original_calls());
    EXPECT_EQ(calls_and_summaries(leaks_of(r.file, "-R " + shm_types), false),
              original_leaks(false));
  }
}

// Four threads attach and detach one segment 200 times each at once, keep one attachment of a
// second segment each and detach it at once after the main thread removed that segment (exactly
// one of them sees the segment go), and keep one attachment of a third segment, which is removed
// while attached and so lives on (a leak, as the kernel ends it at exit untraced).
TEST(ShmsysvModule, ConcurrentAttachmentsGiveExactLeaks) {
  const ScratchDir scratch;
  const Recorded r = record(scratch, "shmsysv", RTRACE_SHM_THREADS_PROGRAM, "leaked segment ");
  EXPECT_EQ(r.output, "done\n");
  // name<type>(size) of every allocation, name<type> of every release: how many of each.
  std::map<std::string, int> count;
  for (const DecodedCall& call : r.trace.calls) {
    const std::string type = r.trace.resources.at(call.resource_type - 1).substr(4);
    const std::string shown = call.name + "<" + type.substr(0, type.find(' ')) + ">";
    ++count[call.kind == 2 ? shown + "(" + std::to_string(call.size) + ")" : shown];
  }
  EXPECT_THAT(
      count, ::testing::ElementsAre(std::pair<const std::string, int>{"shmat<address>(12288)", 4},
                                    std::pair<const std::string, int>{"shmat<address>(4096)", 800},
                                    std::pair<const std::string, int>{"shmat<address>(8192)", 4},
                                    std::pair<const std::string, int>{"shmctl<control>", 3},
                                    std::pair<const std::string, int>{"shmctl<segment>", 1},
                                    std::pair<const std::string, int>{"shmdt<address>", 804},
                                    std::pair<const std::string, int>{"shmdt<segment>", 1},
                                    std::pair<const std::string, int>{"shmget<segment>(12288)", 1},
                                    std::pair<const std::string, int>{"shmget<segment>(4096)", 1},
                                    std::pair<const std::string, int>{"shmget<segment>(8192)", 1}));
  EXPECT_THAT(comparable_calls(r.trace), ::testing::Contains("shmdt<segment>(segment#2)").Times(1));
  EXPECT_THAT(comparable_calls(r.trace),
              ::testing::Contains("shmctl<segment>(segment#1)").Times(1));
  const std::vector<std::string> leaks = calls_and_summaries(leaks_of(r.file), false);
  EXPECT_THAT(leaks, ::testing::ElementsAre(
                         "shmget<segment>(12288)", "shmat<address>(12288)", "shmat<address>(12288)",
                         "shmat<address>(12288)", "shmat<address>(12288)",
                         "# Resource - segment (shared memory segment):",
                         "# 1 block(s) leaked with total size of 12288 bytes",
                         "# Resource - address (shared memory attachments):",
                         "# 4 block(s) leaked with total size of 49152 bytes",
                         "# Resource - control (shared memory segment control operation):",
                         "# 0 block(s) leaked with total size of 0 bytes"));
}

}  // namespace
}  // namespace rtrace::test
