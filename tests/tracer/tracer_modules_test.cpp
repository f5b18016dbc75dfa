// The extra tracing modules end to end (memtransfer, ...): real programs traced through
// LD_PRELOAD alone and together with the memory module, their traces decoded
// (trace_decoder.h) and compared record by record with what the programs say they did, then
// post-processed by the real `rtrace process -c/-l/-lc` and `rtrace report`.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_paths.h"
#include "trace_decoder.h"
#include "trace_records.h"

namespace rtrace::test {
namespace {

namespace fs = std::filesystem;

std::string program(const std::string& name) {
  return std::string(RTRACE_TRACER_PROGRAMS) + "/" + name;
}

// librtrace-main.so, then the named modules in order (a path: a test module of ours).
std::string preload(const std::vector<std::string>& modules) {
  const std::string libs = RTRACE_TRACER_LIBS;
  std::string value = libs + "/librtrace-main.so";
  for (const std::string& module : modules) {
    if (module.find('/') != std::string::npos) {
      value.append(":").append(module);
      continue;
    }
    value.append(":").append(libs).append("/librtrace-").append(module).append(".so");
  }
  return value;
}

// Runs `command` traced from the start in managed mode; returns what it printed. The one trace
// it wrote is at trace_path().
class TracedRun {
 public:
  // `options`: more RTRACE_OPTIONS (args=1, ...).
  // `environment`: more variables, "NAME=value " each (LD_AUDIT=...).
  TracedRun(const std::vector<std::string>& modules, const std::string& command,
            const std::string& options = "", const std::string& environment = "") {
    fs::create_directories(scratch_ / "out");
    result_ = run_command(environment + "LD_PRELOAD=" + preload(modules) +
                          " RTRACE_OPTIONS='start=1," + (options.empty() ? "" : options + ",") +
                          "managed=" + (scratch_ / "out").string() + "' " + command);
    for (const auto& entry : fs::directory_iterator(scratch_ / "out")) {
      traces_.push_back(entry.path());
    }
  }
  const CommandResult& result() const { return result_; }
  fs::path trace_path() const {
    EXPECT_EQ(traces_.size(), 1U);
    return traces_.empty() ? fs::path{} : traces_.front();
  }
  TraceDecoder decode() const {
    TraceDecoder trace = decode_file(trace_path().string());
    EXPECT_TRUE(trace.complete()) << trace.error();
    return trace;
  }
  // `rtrace <arguments> <trace>`: its standard output (the command must succeed).
  std::string rtrace(const std::string& arguments) const {
    const CommandResult run = run_command("'" + (build_dir() / "bin" / "rtrace").string() + "' " +
                                          arguments + " '" + trace_path().string() + "'");
    EXPECT_EQ(run.status, 0) << run.err;
    return run.out;
  }

 private:
  ScratchDir scratch_;
  CommandResult result_;
  std::vector<fs::path> traces_;
};

std::vector<std::string> describe_type(const TraceDecoder& trace, std::uint32_t type) {
  std::vector<std::string> calls;
  for (const DecodedCall& call : trace.calls) {
    if (call.resource_type == type) {
      calls.push_back(describe(call));
    }
  }
  return calls;
}

// The memtransfer records a program announces with its lines "name bytes 0xdestination": each
// transfer is an allocation of its destination and at once the release of it.
std::vector<std::string> announced_transfers(const std::string& output) {
  static const std::regex line(R"(^(\w+) (\d+) (0x[0-9a-f]+)$)");
  std::vector<std::string> expected;
  std::istringstream lines(output);
  std::string text;
  std::smatch m;
  while (std::getline(lines, text)) {
    if (std::regex_match(text, m, line)) {
      expected.push_back(m[1].str() + "(" + m[2].str() + ") = " + m[3].str());
      expected.push_back(m[1].str() + "(" + m[3].str() + ")");
    }
  }
  return expected;
}

// The lines of `text` that start with `prefix`.
std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> found;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.starts_with(prefix)) {
      found.push_back(line);
    }
  }
  return found;
}

// ---- the catalog ---------------------------------------------------------------------------

TEST(TracerModules, RecordListsThemWithTheirDescriptions) {
  const CommandResult list =
      run_command("RTRACE_LIBDIR='" + std::string(RTRACE_TRACER_LIBS) + "' '" +
                  (build_dir() / "bin" / "rtrace").string() + "' record -l");
  ASSERT_EQ(list.status, 0) << list.err;
  const std::vector<std::string> gobject = lines_starting(list.out, "gobject ");
  const std::vector<std::string> memtransfer = lines_starting(list.out, "memtransfer ");
  EXPECT_EQ(gobject, std::vector<std::string>{
                         "gobject     librtrace-gobject.so     gobject: GObject instances "
                         "(g_object_new, ref, ref_sink, unref; refcounted)"});
  EXPECT_EQ(memtransfer, std::vector<std::string>{
                             "memtransfer librtrace-memtransfer.so memtransfer: memcpy, memmove, "
                             "memset, strcpy, strdup, ... (bytes copied per call site)"});
  EXPECT_EQ(lines_starting(list.out, "qobject "),
            std::vector<std::string>{"qobject     librtrace-qobject.so     qobject: QObject "
                                     "instances of Qt 5 (constructions, destructions; class "
                                     "names)"});
  EXPECT_EQ(lines_starting(list.out, "audit "),
            std::vector<std::string>{"audit       librtrace-audit.so       audit: calls of any "
                                     "exported functions named by --audit patterns (LD_AUDIT)"});
  // The audit module's linker library is not a module to preload: not listed.
  EXPECT_EQ(list.out.find("audit-linker"), std::string::npos) << list.out;
}

// The session may be set up before librtrace-main.so's constructors ran (a library the program
// needs allocates in its own constructor), and its module registration then runs them: a
// dynamically initialized static would be reset halfway (that is how the ids once came out of
// -e order). Every static of every tracer library is constant-initialized: no initializer
// function (_GLOBAL__sub_I_...) in their symbol tables.
TEST(TracerModules, NoLibraryHasADynamicInitializer) {
  std::size_t libraries = 0;
  for (const auto& entry : fs::directory_iterator(RTRACE_TRACER_LIBS)) {
    const std::string name = entry.path().filename().string();
    if (!(name.starts_with("librtrace-") || name.starts_with("rtrace-")) ||
        entry.path().extension() != ".so") {
      continue;
    }
    ++libraries;
    const CommandResult symbols = run_command("nm '" + entry.path().string() + "'");
    ASSERT_EQ(symbols.status, 0) << symbols.err;
    EXPECT_NE(symbols.out.find(" T "), std::string::npos) << name;  // a real symbol table
    EXPECT_EQ(symbols.out.find("_GLOBAL__sub_I_"), std::string::npos) << name;
  }
  EXPECT_EQ(libraries, 13U);  // main, the ten modules, the context and audit linker libraries
}

// ---- the registry's limits -------------------------------------------------------------------

// The protocol names resource types in 32-bit masks: with the memory module's one type, a module
// registering 40 gets ids for 31; the other 9 registrations return 0 and their calls are dropped,
// never written under another type's id.
TEST(TracerModules, AtMost32ResourceTypesAndNoCallOfAnUnregisteredOne) {
  const TracedRun run({"memory", program("librtrace-manytypes.so")}, program("many_types"));
  ASSERT_EQ(run.result().status, 0) << run.result().err;
  const TraceDecoder trace = run.decode();
  ASSERT_EQ(trace.resources.size(), 32U);
  EXPECT_EQ(trace.resources.front(), "1 0 memory (memory allocation in bytes)");
  std::map<std::uint32_t, std::string> type_names;  // wire id -> type
  for (std::size_t i = 1; i < 32; ++i) {
    const std::string expected_type = (i - 1 < 10 ? "type0" : "type") + std::to_string(i - 1);
    EXPECT_EQ(trace.resources[i],
              std::to_string(i + 1) + " 0 " + expected_type + " (a test resource type)");
    type_names[static_cast<std::uint32_t>(i + 1)] = expected_type;
  }
  std::vector<std::string> made;
  for (const DecodedCall& call : trace.calls) {
    ASSERT_GE(call.resource_type, 1U) << call.name;
    ASSERT_LE(call.resource_type, 32U) << call.name;
    if (call.name.rfind("make_", 0) != 0) {
      EXPECT_EQ(call.resource_type, 1U) << call.name;
      continue;
    }
    // make_typeNN is a call of typeNN, id 0x1000 + NN, size 100 + NN.
    const int index = std::stoi(call.name.substr(9));
    EXPECT_EQ(type_names[call.resource_type], call.name.substr(5));
    EXPECT_EQ(call.id, 0x1000U + static_cast<unsigned>(index));
    EXPECT_EQ(call.size, 100U + static_cast<unsigned>(index));
    made.push_back(call.name);
  }
  std::vector<std::string> expected;
  expected.reserve(31);
  for (int i = 0; i < 31; ++i) {
    expected.push_back(std::string(i < 10 ? "make_type0" : "make_type") + std::to_string(i));
  }
  EXPECT_EQ(made, expected);
}

// ---- memtransfer ---------------------------------------------------------------------------

TEST(MemtransferModule, RecordsEveryTransferOfTheProgramAsAnAllocationAndItsRelease) {
  const TracedRun run({"memtransfer"}, program("memtransfer_calls"));
  ASSERT_EQ(run.result().status, 0) << run.result().err;
  const TraceDecoder trace = run.decode();

  EXPECT_EQ(trace.modules, (std::vector<std::pair<std::uint32_t, std::string>>{
                               {0, "main 1.0"}, {1, "memtransfer 1.0"}}));
  EXPECT_EQ(trace.resources,
            std::vector<std::string>{"1 0 memtransfer (memory transfer operations in bytes)"});
  const std::vector<std::string> expected = announced_transfers(run.result().out);
  ASSERT_EQ(expected.size(), 46U);
  // Nothing else: the start-up code, printf and the tracer's own copies are not in the trace.
  EXPECT_EQ(describe_type(trace, 1), expected);
  for (const DecodedCall& call : trace.calls) {
    if (call.kind == 2) {
      EXPECT_TRUE(frame0_in(trace, call, program("memtransfer_calls"))) << describe(call);
    } else {
      EXPECT_TRUE(call.frames.empty()) << describe(call);  // releases: no backtrace (no -A)
    }
  }
}

TEST(MemtransferModule, EachTransferKeepsItsReleaseNextToItAcrossThreads) {
  const TracedRun run({"memtransfer"}, program("memtransfer_threads"));
  ASSERT_EQ(run.result().status, 0) << run.result().err;
  const TraceDecoder trace = run.decode();
  std::uint64_t transfers = 0;
  for (std::size_t i = 0; i < trace.calls.size(); ++i) {
    const DecodedCall& call = trace.calls[i];
    if (call.kind != 2) {
      continue;
    }
    ++transfers;
    ASSERT_LT(i + 1, trace.calls.size());
    const DecodedCall& release = trace.calls[i + 1];
    EXPECT_EQ(release.kind, 1U) << describe(call);
    EXPECT_EQ(describe(release), call.name + "(" + hex(call.id) + ")");
    EXPECT_EQ(call.size == 16 || (call.size >= 64 && call.size < 128), true) << describe(call);
  }
  EXPECT_EQ(transfers, 40000U);
  EXPECT_EQ(trace.calls.size(), 80000U);
  EXPECT_EQ(trace.leaks.false_frees(), 0U);
  EXPECT_TRUE(trace.leaks.live().empty());
}

TEST(MemtransferModule, WithFreeBacktracesTheReleaseCarriesTheTransfersBacktrace) {
  const TracedRun run({"memtransfer"}, program("memtransfer_calls"), "free-backtraces=1");
  ASSERT_EQ(run.result().status, 0) << run.result().err;
  const TraceDecoder trace = run.decode();
  EXPECT_EQ(describe_type(trace, 1), announced_transfers(run.result().out));
  ASSERT_EQ(trace.calls.size() % 2, 0U);
  for (std::size_t i = 0; i + 1 < trace.calls.size(); i += 2) {
    EXPECT_FALSE(trace.calls[i].frames.empty()) << describe(trace.calls[i]);
    EXPECT_EQ(trace.calls[i + 1].frames, trace.calls[i].frames) << describe(trace.calls[i]);
  }
}

// Every transfer's backtrace at `depth`, with the address space laid out the same in every run
// (setarch -R); `unwinder` is RTRACE_UNWINDER's value (empty: the default, the fast walk).
std::vector<std::vector<std::uint64_t>> transfer_backtraces(std::uint32_t depth,
                                                            const std::string& unwinder) {
  const TracedRun run(
      {"memtransfer"}, program("memtransfer_calls"), "depth=" + std::to_string(depth),
      "setarch -R env " + (unwinder.empty() ? std::string() : "RTRACE_UNWINDER=" + unwinder + " "));
  EXPECT_EQ(run.result().status, 0) << run.result().err;
  std::vector<std::vector<std::uint64_t>> backtraces;
  for (const DecodedCall& call : run.decode().calls) {
    if (call.kind == 2) {
      backtraces.push_back(call.frames);
    }
  }
  return backtraces;
}

// A transfer is walked from rtrace_record_transient with the capture inlined into it
// (backtrace_capture.h), its repeats taken from the walk memo and only the frames not shared
// with the previous record kept in the ring; at depth 64 it goes the other way (walked straight
// into the record). Either way, libunwind's whole stacks, frame for frame.
TEST(MemtransferModule, TheFastWalkRecordsTheBacktracesLibunwindDoes) {
  for (const std::uint32_t depth : {10U, 64U}) {
    SCOPED_TRACE(depth);
    const auto fast = transfer_backtraces(depth, "");
    const auto slow = transfer_backtraces(depth, "libunwind");
    ASSERT_EQ(fast.size(), 23U);
    EXPECT_EQ(fast, slow);
    for (const auto& frames : fast) {
      // memtransfer_calls' main, the C library's start: at least two frames, all at depth 64.
      EXPECT_GE(frames.size(), 2U);
      EXPECT_LT(frames.size(), depth);
    }
  }
}

// The thread writes one record per transfer, which the drain expands (transient_record.h): the same
// records whichever writer gets them (the compact format) and however often the drain runs
// (buffered=0: after every record), with and without free backtraces.
TEST(MemtransferModule, TheSameRecordsInTheCompactFormatAndWrittenOneByOne) {
  for (const std::string options :
       {"compact=1", "buffered=0", "compact=1,free-backtraces=1", "buffered=0,free-backtraces=1"}) {
    const TracedRun run({"memtransfer"}, program("memtransfer_calls"), options);
    ASSERT_EQ(run.result().status, 0) << options << ": " << run.result().err;
    const TraceDecoder trace = run.decode();
    const std::vector<std::string> expected = announced_transfers(run.result().out);
    ASSERT_EQ(expected.size(), 46U) << options;
    EXPECT_EQ(describe_type(trace, 1), expected) << options;
    const bool release_frames = options.find("free-backtraces") != std::string::npos;
    for (std::size_t i = 0; i + 1 < trace.calls.size(); i += 2) {
      const DecodedCall& call = trace.calls[i];
      EXPECT_TRUE(frame0_in(trace, call, program("memtransfer_calls"))) << options;
      EXPECT_EQ(trace.calls[i + 1].frames,
                release_frames ? call.frames : std::vector<std::uint64_t>{})
          << options << ": " << describe(call);
    }
  }
}

TEST(MemtransferModule, EachTransferKeepsItsReleaseNextToItInTheCompactFormat) {
  const TracedRun run({"memtransfer"}, program("memtransfer_threads"), "compact=1");
  ASSERT_EQ(run.result().status, 0) << run.result().err;
  const TraceDecoder trace = run.decode();
  ASSERT_EQ(trace.calls.size(), 80000U);
  for (std::size_t i = 0; i + 1 < trace.calls.size(); i += 2) {
    ASSERT_EQ(trace.calls[i].kind, 2U) << i;
    ASSERT_EQ(describe(trace.calls[i + 1]),
              trace.calls[i].name + "(" + hex(trace.calls[i].id) + ")")
        << i;
  }
  EXPECT_TRUE(trace.leaks.live().empty());
}

TEST(MemtransferModule, RecordsTheFortifiedFormsTheCompilerEmits) {
  const TracedRun run({"memtransfer"}, program("memtransfer_fortified"));
  ASSERT_EQ(run.result().status, 0) << run.result().err;
  const std::vector<std::string> expected = announced_transfers(run.result().out);
  ASSERT_EQ(expected.size(), 10U);
  EXPECT_EQ(expected.front().substr(0, 13), "__memset_chk(");
  EXPECT_EQ(describe_type(run.decode(), 1), expected);
}

// The fortified strcpy goes to the C library's __stpcpy_chk (its end gives the size): the same
// check of the room, so a copy that does not fit still aborts the program, before anything is
// recorded of it.
TEST(MemtransferModule, AFortifiedCopyThatDoesNotFitStillAborts) {
  const TracedRun run({"memtransfer"}, program("memtransfer_fortified") + " overflow");
  EXPECT_NE(run.result().status, 0);
  EXPECT_NE(run.result().err.find("copying\n"), std::string::npos) << run.result().err;
  EXPECT_NE(run.result().err.find("buffer overflow detected"), std::string::npos)
      << run.result().err;
  EXPECT_EQ(run.result().out, "");
}

TEST(MemtransferModule, WithTheMemoryModuleBothTypesAreRecordedAndOnlyMemoryLeaks) {
  const TracedRun run({"memory", "memtransfer"}, program("memtransfer_calls"));
  ASSERT_EQ(run.result().status, 0) << run.result().err;
  const TraceDecoder trace = run.decode();
  EXPECT_EQ(trace.resources,
            (std::vector<std::string>{"1 0 memory (memory allocation in bytes)",
                                      "2 0 memtransfer (memory transfer operations in bytes)"}));
  EXPECT_EQ(describe_type(trace, 2), announced_transfers(run.result().out));

  // strdup's malloc, made inside the real strdup, is the memory module's record, before the
  // transfer record of the same block.
  const std::string output = run.result().out;
  const std::string copy =
      output.substr(output.find("strdup 8 ") + 9,
                    output.find('\n', output.find("strdup 8 ")) - output.find("strdup 8 ") - 9);
  std::vector<std::string> around_strdup;
  for (const DecodedCall& call : trace.calls) {
    if (hex(call.id) == copy && call.kind == 2) {
      around_strdup.push_back(std::to_string(call.resource_type) + " " + describe(call));
    }
  }
  EXPECT_EQ(around_strdup,
            (std::vector<std::string>{"1 malloc(8) = " + copy, "2 strdup(8) = " + copy}));

  // -l: the strndup copy (and stdout's buffer, never freed) leak; no transfer does.
  const std::string leaked = output.substr(output.find("leaked ") + 7, output.size());
  const std::string leaks = run.rtrace("process -l -i");
  std::vector<std::string> leak_lines = lines_starting(leaks, "# ");
  EXPECT_EQ(leak_lines, (std::vector<std::string>{
                            "# Resource - memory (memory allocation in bytes):",
                            "# 2 block(s) leaked with total size of 4101 bytes",
                            "# Resource - memtransfer (memory transfer operations in bytes):",
                            "# 0 block(s) leaked with total size of 0 bytes"}));
  EXPECT_NE(leaks.find("malloc<memory>(5) = " + leaked.substr(0, leaked.find('\n'))),
            std::string::npos)
      << leaks;
}

TEST(MemtransferModule, CompressRanksCallSitesByBytesAndLeaksFindNothing) {
  const TracedRun run({"memtransfer"}, program("memtransfer_calls"));
  ASSERT_EQ(run.result().status, 0) << run.result().err;

  // One group per call site, ascending by bytes; the loop's site is last with its ten copies;
  // the releases (no backtrace) form one group of size 0.
  const std::vector<std::string> groups = lines_starting(run.rtrace("process -c -i"), "# ");
  std::vector<std::string> expected{"# allocation summary: 23 block(s) with total size 0"};
  for (const int size : {4, 4, 5, 6, 6, 8, 8, 10, 12, 16, 20, 32, 32}) {
    expected.push_back("# allocation summary: 1 block(s) with total size " + std::to_string(size));
  }
  expected.push_back("# allocation summary: 10 block(s) with total size 480");
  EXPECT_EQ(groups, expected);

  const std::string leaks = run.rtrace("process -lc -i");
  EXPECT_TRUE(lines_starting(leaks, "1").empty()) << leaks;  // no call survives
  EXPECT_EQ(
      lines_starting(leaks, "# "),
      (std::vector<std::string>{"# Resource - memtransfer (memory transfer operations in bytes):",
                                "# 0 block(s) leaked with total size of 0 bytes"}));
  EXPECT_EQ(lines_starting(leaks, "## tracing module:"),
            (std::vector<std::string>{"## tracing module: [0] main (1.0)",
                                      "## tracing module: [1] memtransfer (1.0)"}));
  EXPECT_EQ(lines_starting(leaks, "<1> :"),
            std::vector<std::string>{"<1> : memtransfer (memory transfer operations in bytes)"});

  // The report counts transfers and their bytes per site; nothing is held, leaked or temporary.
  const std::string report = run.rtrace("report --no-resolve");
  EXPECT_NE(report.find("TOTALS\n  memtransfer (memory transfer operations in bytes): 46 calls, "
                        "23 transfer(s) of 643 bytes\n\nPEAK CONSUMPTION\n  memtransfer: "
                        "transfers, nothing held\n\nLEAKS\n  memtransfer: transfers, never "
                        "leaks\n\nALLOCATION SITES"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("  memtransfer: 14 site(s), the first 10\n"), std::string::npos) << report;
  EXPECT_NE(report.find("\n      10 transfer(s), 480 B (74.7%) transferred\n"), std::string::npos)
      << report;
  EXPECT_NE(report.find("MOST ALLOCATING BACKTRACES\n    10 transfers of 480 bytes (memtransfer)"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("TEMPORARY ALLOCATIONS (released by the very next call)\n\nALLOCATION "
                        "SIZES\n  memtransfer:\n"),
            std::string::npos)
      << report;
  const std::string json = run.rtrace("report --no-resolve --json");
  EXPECT_NE(json.find("{\"type\": \"memtransfer\", \"description\": \"memory transfer operations "
                      "in bytes\", \"unit\": \"transfer\", \"sized\": true, \"transfers\": true, "
                      "\"calls\": 46, \"allocations\": 23, "),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"leaks\": [],"), std::string::npos) << json;
  EXPECT_NE(json.find("\"temporary\": [],"), std::string::npos) << json;
}

// ---- gobject -------------------------------------------------------------------------------

// The records a program announces with its lines "name 0xobject [class]", matched by `line`: an
// allocation of `size` with its class as argument `argument` when the line names one, a release
// otherwise.
std::vector<std::string> announced_records(const std::string& output, const std::regex& line,
                                           const std::string& size, const std::string& argument) {
  std::vector<std::string> expected;
  std::istringstream lines(output);
  std::string text;
  std::smatch m;
  while (std::getline(lines, text)) {
    if (!std::regex_match(text, m, line)) {
      continue;
    }
    if (m[3].matched) {
      expected.push_back(
          fmt::format("{}({}) = {} {}={}", m[1].str(), size, m[2].str(), argument, m[3].str()));
    } else {
      expected.push_back(m[1].str() + "(" + m[2].str() + ")");
    }
  }
  return expected;
}

// The gobject records: an allocation of the object's 24 bytes with its type for the calls that
// add a reference, a release for the others.
std::vector<std::string> announced_objects(const std::string& output) {
  static const std::regex line(R"(^(g_\w+) (0x[0-9a-f]+)(?: (\w+))?$)");
  return announced_records(output, line, "24", "type");
}

std::string printed_leak(const std::string& output) {
  const std::size_t at = output.find("leaked ");
  return at == std::string::npos ? std::string{}
                                 : output.substr(at + 7, output.find('\n', at) - at - 7);
}

TEST(GObjectModule, RecordsCreationsReferencesAndReleasesOfARealGLibProgram) {
  const TracedRun run({"gobject"}, program("gobject_objects"), "args=1");
  ASSERT_EQ(run.result().status, 0) << run.result().err;
  const TraceDecoder trace = run.decode();
  EXPECT_EQ(trace.modules, (std::vector<std::pair<std::uint32_t, std::string>>{
                               {0, "main 1.0"}, {1, "gobject 1.0"}}));
  EXPECT_EQ(trace.resources, std::vector<std::string>{"1 1 gobject (GObject instance)"});
  const std::vector<std::string> expected = announced_objects(run.result().out);
  ASSERT_EQ(expected.size(), 11U);
  // The first g_object_ref_sink took over the floating reference: no record.
  EXPECT_EQ(describe_objects(trace, 1), expected);
  for (const DecodedCall& call : trace.calls) {
    if (call.kind == 2) {
      EXPECT_TRUE(frame0_in(trace, call, program("gobject_objects"))) << describe(call);
    }
  }
}

TEST(GObjectModule, WithoutArgumentsTheTypeNameIsLeftOut) {
  const TracedRun run({"gobject"}, program("gobject_objects"));
  ASSERT_EQ(run.result().status, 0) << run.result().err;
  const TraceDecoder trace = run.decode();
  ASSERT_EQ(trace.calls.size(), 11U);
  for (const DecodedCall& call : trace.calls) {
    EXPECT_TRUE(call.args.empty()) << describe(call);
  }
}

TEST(GObjectModule, LeaksShowTheObjectNeverFinalizedAndWhereItWasCreated) {
  const TracedRun run({"gobject"}, program("gobject_objects"), "args=1");
  ASSERT_EQ(run.result().status, 0) << run.result().err;
  const std::string leaked = printed_leak(run.result().out);
  ASSERT_FALSE(leaked.empty());

  const std::string leaks = run.rtrace("process -l -i");
  EXPECT_EQ(lines_starting(leaks, "<1> :"),
            std::vector<std::string>{"<1> : gobject (GObject instance) [refcount]"});
  EXPECT_EQ(lines_starting(leaks, "## tracing module:"),
            (std::vector<std::string>{"## tracing module: [0] main (1.0)",
                                      "## tracing module: [1] gobject (1.0)"}));
  static const std::regex call(R"(^11\. \[[0-9:.]+\] (.*)$)");
  std::smatch m;
  const std::string first_call =
      lines_starting(leaks, "11. ").empty() ? std::string{} : lines_starting(leaks, "11. ").front();
  ASSERT_TRUE(std::regex_match(first_call, m, call)) << leaks;
  EXPECT_EQ(m[1].str(), "g_object_new(24) = " + leaked);
  EXPECT_EQ(lines_starting(leaks, "\t$"), std::vector<std::string>{"\t$type = GObject"});
  EXPECT_EQ(lines_starting(leaks, "# "),
            (std::vector<std::string>{"# Resource - gobject (GObject instance):",
                                      "# 1 block(s) leaked with total size of 24 bytes"}));

  const std::string compressed = run.rtrace("process -lc -i");
  EXPECT_EQ(lines_starting(compressed, "# "),
            (std::vector<std::string>{"# allocation summary: 1 block(s) with total size 24",
                                      "# Resource - gobject (GObject instance):",
                                      "# 1 block(s) leaked with total size of 24 bytes"}));

  const std::string report = run.rtrace("report --no-resolve");
  EXPECT_NE(report.find("  gobject (GObject instance): 11 calls, 6 allocations of 144 bytes, 5 "
                        "releases, 1 temporary\n"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("LEAKS\n  gobject: 1 object(s) leaked, 24 bytes\n"), std::string::npos)
      << report;
}

TEST(GObjectModule, WithTheMemoryModuleTheObjectsAreTheSame) {
  const TracedRun run({"memory", "gobject"}, program("gobject_objects"), "args=1");
  ASSERT_EQ(run.result().status, 0) << run.result().err;
  const TraceDecoder trace = run.decode();
  EXPECT_EQ(trace.resources, (std::vector<std::string>{"1 0 memory (memory allocation in bytes)",
                                                       "2 1 gobject (GObject instance)"}));
  EXPECT_EQ(describe_objects(trace, 2), announced_objects(run.result().out));
  EXPECT_GT(describe_type(trace, 1).size(), 0U);  // GLib's own allocations
  const std::vector<std::string> summaries = lines_starting(run.rtrace("process -l -i"), "# ");
  ASSERT_EQ(summaries.size(), 4U);
  EXPECT_EQ(summaries[2], "# Resource - gobject (GObject instance):");
  EXPECT_EQ(summaries[3], "# 1 block(s) leaked with total size of 24 bytes");
}

TEST(GObjectModule, AProgramWithoutGLibIsTracedAndDoesNotLoadIt) {
  const TracedRun run({"memory", "gobject"}, program("memtransfer_calls"));
  ASSERT_EQ(run.result().status, 0) << run.result().err;
  const TraceDecoder trace = run.decode();
  EXPECT_EQ(trace.resources, (std::vector<std::string>{"1 0 memory (memory allocation in bytes)",
                                                       "2 1 gobject (GObject instance)"}));
  EXPECT_TRUE(describe_type(trace, 2).empty());
  EXPECT_GE(describe_type(trace, 1).size(), 6U);  // its mallocs, strdups and frees
  for (const DecodedMapping& mapping : trace.mappings) {
    EXPECT_EQ(mapping.path.find("libgobject"), std::string::npos) << mapping.path;
  }
}

// ---- qobject -------------------------------------------------------------------------------

// The qobject records: "QObject::QObject 0xobject Class" (an allocation of size 1 with its
// class) and "QObject::~QObject 0xobject" (a release).
std::vector<std::string> announced_qobjects(const std::string& output) {
  static const std::regex line(R"(^(QObject::~?QObject) (0x[0-9a-f]+)(?: (\S+))?$)");
  return announced_records(output, line, "1", "class");
}

std::string qt_core_path(const TraceDecoder& trace) {
  for (const DecodedMapping& mapping : trace.mappings) {
    if (mapping.path.find("libQt5Core.so") != std::string::npos) {
      return mapping.path;
    }
  }
  return {};
}

TEST(QObjectModule, RecordsConstructionsAndDestructionsOfARealQtProgram) {
  const TracedRun run({"qobject"}, program("qobject_objects"));
  ASSERT_EQ(run.result().status, 0) << run.result().err;
  const TraceDecoder trace = run.decode();
  EXPECT_EQ(trace.modules, (std::vector<std::pair<std::uint32_t, std::string>>{
                               {0, "main 1.0"}, {1, "qobject 1.0"}}));
  EXPECT_EQ(trace.resources, std::vector<std::string>{"1 0 qobject (QObject instance)"});
  const std::vector<std::string> expected = announced_qobjects(run.result().out);
  ASSERT_EQ(expected.size(), 12U) << run.result().out;
  EXPECT_EQ(describe_objects(trace, 1), expected);
  // Frame 0: the program's call site for what the program constructs itself; inside libQt5Core
  // for what Qt constructs (the main thread's QThread, the QTimer's QObject part).
  const std::string qt_core = qt_core_path(trace);
  ASSERT_FALSE(qt_core.empty());
  for (const DecodedCall& call : trace.calls) {
    if (call.kind != 2) {
      EXPECT_TRUE(call.frames.empty()) << describe(call);  // releases: no backtrace without -A
      continue;
    }
    const std::string& class_name = call.args.empty() ? std::string() : call.args.front().second;
    const bool made_by_qt = class_name == "QThread" || class_name == "QTimer";
    EXPECT_TRUE(frame0_in(trace, call, made_by_qt ? qt_core : program("qobject_objects")))
        << describe(call) << " " << class_name;
  }
}

TEST(QObjectModule, LeaksShowTheObjectsNeverDestroyedWithTheirClass) {
  const TracedRun run({"qobject"}, program("qobject_objects"));
  ASSERT_EQ(run.result().status, 0) << run.result().err;
  const std::string leaked = printed_leak(run.result().out);
  ASSERT_FALSE(leaked.empty());

  const std::string leaks = run.rtrace("process -l -i");
  EXPECT_EQ(lines_starting(leaks, "<1> :"),
            std::vector<std::string>{"<1> : qobject (QObject instance)"});
  EXPECT_EQ(lines_starting(leaks, "## tracing module:"),
            (std::vector<std::string>{"## tracing module: [0] main (1.0)",
                                      "## tracing module: [1] qobject (1.0)"}));
  static const std::regex call(R"(^\d+\. \[[0-9:.]+\] (.*)$)");
  std::vector<std::string> leaked_calls;
  std::istringstream lines(leaks);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_match(line, m, call)) {
      leaked_calls.push_back(m[1].str());
    }
  }
  // The main thread's QThread lives as long as the process; the LeakyWorker was never deleted.
  ASSERT_EQ(leaked_calls.size(), 2U) << leaks;
  EXPECT_EQ(leaked_calls[1], "QObject::QObject(1) = " + leaked);
  EXPECT_EQ(lines_starting(leaks, "\t$"),
            (std::vector<std::string>{"\t$class = QThread", "\t$class = LeakyWorker"}));
  EXPECT_EQ(lines_starting(leaks, "# "),
            (std::vector<std::string>{"# Resource - qobject (QObject instance):",
                                      "# 2 block(s) leaked with total size of 2 bytes"}));

  const std::string report = run.rtrace("report --no-resolve");
  EXPECT_NE(report.find("  qobject (QObject instance): 12 calls, 7 allocations, 5 releases, 1 "
                        "temporary\n"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("LEAKS\n  qobject: 2 object(s) leaked\n"), std::string::npos) << report;
}

// With the memory module, before or after it: the same QObject records, under the type id the
// order of -e gives, and the objects' memory in the memory module's records.
TEST(QObjectModule, WithTheMemoryModuleInEitherOrderTheObjectsAreTheSame) {
  for (const bool memory_first : {true, false}) {
    const std::vector<std::string> modules = memory_first
                                                 ? std::vector<std::string>{"memory", "qobject"}
                                                 : std::vector<std::string>{"qobject", "memory"};
    const TracedRun run(modules, program("qobject_objects"));
    ASSERT_EQ(run.result().status, 0) << run.result().err;
    const TraceDecoder trace = run.decode();
    const std::string memory = "memory (memory allocation in bytes)";
    const std::string qobject = "qobject (QObject instance)";
    EXPECT_EQ(trace.resources, memory_first
                                   ? (std::vector<std::string>{"1 0 " + memory, "2 0 " + qobject})
                                   : (std::vector<std::string>{"1 0 " + qobject, "2 0 " + memory}));
    const std::uint32_t qobject_type = memory_first ? 2 : 1;
    EXPECT_EQ(describe_objects(trace, qobject_type), announced_qobjects(run.result().out));
    // Each object the program made with new is a C++ allocation the memory module saw.
    const std::vector<std::string> memory_calls = describe_type(trace, memory_first ? 1 : 2);
    const std::string leaked = printed_leak(run.result().out);
    EXPECT_NE(std::find_if(memory_calls.begin(), memory_calls.end(),
                           [&](const std::string& c) {
                             return c.starts_with("operator new(unsigned long)(16) = " + leaked);
                           }),
              memory_calls.end());
    const std::vector<std::string> summaries = lines_starting(run.rtrace("process -l -i"), "# ");
    EXPECT_NE(std::find(summaries.begin(), summaries.end(), "# Resource - " + qobject + ":"),
              summaries.end());
  }
}

TEST(QObjectModule, AProgramWithoutQtIsTracedAndDoesNotLoadIt) {
  const TracedRun run({"memory", "qobject"}, program("memtransfer_calls"));
  ASSERT_EQ(run.result().status, 0) << run.result().err;
  const TraceDecoder trace = run.decode();
  EXPECT_EQ(trace.resources, (std::vector<std::string>{"1 0 memory (memory allocation in bytes)",
                                                       "2 0 qobject (QObject instance)"}));
  EXPECT_TRUE(describe_type(trace, 2).empty());
  for (const DecodedMapping& mapping : trace.mappings) {
    EXPECT_EQ(mapping.path.find("libQt5"), std::string::npos) << mapping.path;
  }
}

// ---- audit ---------------------------------------------------------------------------------

constexpr char kAuditPatterns[] = "target_*:strlen";

std::string audit_environment() {
  return std::string("LD_BIND_NOW=1 LD_AUDIT=") + RTRACE_TRACER_LIBS + "/rtrace-audit-linker.so ";
}

// The calls a program announces with its lines "call name": `name({call})` records.
std::vector<std::string> announced_calls(const std::string& output) {
  std::vector<std::string> expected;
  for (const std::string& line : lines_starting(output, "call ")) {
    expected.push_back(line.substr(5) + "({call})");
  }
  return expected;
}

std::vector<std::string> describe_calls(const TraceDecoder& trace, std::uint32_t type) {
  std::vector<std::string> calls;
  for (const DecodedCall& call : trace.calls) {
    if (call.resource_type == type) {
      EXPECT_EQ(call.kind, 0U) << call.name;
      EXPECT_EQ(call.size, 0U) << call.name;
      EXPECT_EQ(call.id, 0U) << call.name;
      EXPECT_TRUE(call.args.empty()) << call.name;
      calls.push_back(call.name + "({call})");
    }
  }
  return calls;
}

TEST(AuditModule, RecordsEveryCallOfTheChosenFunctionsWithItsBacktrace) {
  const TracedRun run({"audit"}, program("audit_calls"), std::string("audit=") + kAuditPatterns,
                      audit_environment());
  ASSERT_EQ(run.result().status, 0) << run.result().err;
  const TraceDecoder trace = run.decode();
  EXPECT_EQ(trace.modules, (std::vector<std::pair<std::uint32_t, std::string>>{{0, "main 1.0"},
                                                                               {1, "audit 1.0"}}));
  EXPECT_EQ(trace.resources, std::vector<std::string>{"1 0 audit (virtual audit resource)"});
  const std::vector<std::string> expected = announced_calls(run.result().out);
  ASSERT_EQ(expected.size(), 9U) << run.result().out;  // untraced_function is not chosen
  EXPECT_EQ(describe_calls(trace, 1), expected);
  for (const DecodedCall& call : trace.calls) {
    // Frame 0 is the call site in main; the backtrace goes on below main (libc's start code).
    EXPECT_TRUE(frame0_in(trace, call, program("audit_calls"))) << call.name;
    EXPECT_GE(call.frames.size(), 3U) << call.name;
  }
}

TEST(AuditModule, WithoutPatternsNothingIsRecorded) {
  const TracedRun run({"audit"}, program("audit_calls"), "", audit_environment());
  ASSERT_EQ(run.result().status, 0) << run.result().err;
  EXPECT_TRUE(run.decode().calls.empty());
}

TEST(AuditModule, WithTheMemoryModuleInEitherOrderTheCallsAreTheSame) {
  for (const bool memory_first : {true, false}) {
    const std::vector<std::string> modules = memory_first
                                                 ? std::vector<std::string>{"memory", "audit"}
                                                 : std::vector<std::string>{"audit", "memory"};
    const TracedRun run(modules, program("audit_calls"), std::string("audit=") + kAuditPatterns,
                        audit_environment());
    ASSERT_EQ(run.result().status, 0) << run.result().err;
    const TraceDecoder trace = run.decode();
    const std::string memory = "memory (memory allocation in bytes)";
    const std::string audit = "audit (virtual audit resource)";
    EXPECT_EQ(trace.resources, memory_first
                                   ? (std::vector<std::string>{"1 0 " + memory, "2 0 " + audit})
                                   : (std::vector<std::string>{"1 0 " + audit, "2 0 " + memory}));
    EXPECT_EQ(describe_calls(trace, memory_first ? 2 : 1), announced_calls(run.result().out));
    EXPECT_FALSE(describe_type(trace, memory_first ? 1 : 2).empty());  // printf's buffer
  }
}

// Through `rtrace record -e audit --audit`, which sets LD_AUDIT itself; then the text, the
// per-backtrace counts (-c) and the report.
TEST(AuditModule, RecordCountsAndReportsTheCalls) {
  const ScratchDir scratch;
  const std::string rtrace = "'" + (build_dir() / "bin" / "rtrace").string() + "'";
  const CommandResult recorded =
      run_command("RTRACE_LIBDIR='" + std::string(RTRACE_TRACER_LIBS) + "' " + rtrace +
                  " record -q -e audit --audit '" + kAuditPatterns + "' -o '" +
                  scratch.path().string() + "' -x " + program("audit_calls"));
  ASSERT_EQ(recorded.status, 0) << recorded.err;
  std::vector<fs::path> traces;
  for (const auto& entry : fs::directory_iterator(scratch.path())) {
    traces.push_back(entry.path());
  }
  ASSERT_EQ(traces.size(), 1U);
  const std::string trace = " '" + traces.front().string() + "'";

  const CommandResult text = run_command(rtrace + " process -i" + trace);
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_EQ(lines_starting(text.out, "## tracing module:"),
            (std::vector<std::string>{"## tracing module: [0] main (1.0)",
                                      "## tracing module: [1] audit (1.0)"}));
  EXPECT_EQ(lines_starting(text.out, "<1> :"),
            std::vector<std::string>{"<1> : audit (virtual audit resource)"});
  static const std::regex call(R"(^\d+\. \[[0-9:.]+\] (.*)$)");
  std::vector<std::string> calls;
  std::istringstream lines(text.out);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_match(line, m, call)) {
      calls.push_back(m[1].str());
    }
  }
  EXPECT_EQ(calls, announced_calls(recorded.out));

  // -c: one group per backtrace (the three target_add calls share theirs, as do the strlen
  // calls); -l: nothing leaks.
  const CommandResult compressed = run_command(rtrace + " process -c -i" + trace);
  ASSERT_EQ(compressed.status, 0) << compressed.err;
  std::vector<std::string> groups = lines_starting(compressed.out, "# allocation summary:");
  std::sort(groups.begin(), groups.end());
  ASSERT_GE(groups.size(), 3U) << compressed.out;
  EXPECT_EQ(std::count(groups.begin(), groups.end(),
                       "# allocation summary: 3 block(s) with total size 0"),
            1)
      << compressed.out;
  EXPECT_EQ(std::count(groups.begin(), groups.end(),
                       "# allocation summary: 4 block(s) with total size 0"),
            1)
      << compressed.out;
  const CommandResult leaks = run_command(rtrace + " process -l -i" + trace);
  ASSERT_EQ(leaks.status, 0) << leaks.err;
  EXPECT_FALSE(std::regex_search(leaks.out, std::regex(R"(^\d+\. )", std::regex::multiline)))
      << leaks.out;

  const CommandResult report = run_command(rtrace + " report --no-resolve" + trace);
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_NE(report.out.find("  audit (virtual audit resource): 9 calls, 0 allocations"),
            std::string::npos)
      << report.out;
  for (const char* hits : {"target_add \\(pid \\d+\\): 3 hit\\(s\\) in 1 thread",
                           "target_scale \\(pid \\d+\\): 2 hit\\(s\\) in 1 thread",
                           "strlen \\(pid \\d+\\): 4 hit\\(s\\) in 1 thread"}) {
    EXPECT_TRUE(std::regex_search(report.out, std::regex(hits))) << hits << "\n" << report.out;
  }
}

TEST(AuditModule, RecordRefusesTheModuleWithoutPatternsAndPatternsWithoutTheModule) {
  const std::string rtrace = "RTRACE_LIBDIR='" + std::string(RTRACE_TRACER_LIBS) + "' '" +
                             (build_dir() / "bin" / "rtrace").string() + "' record -q ";
  const CommandResult no_patterns = run_command(rtrace + "-e audit -x true");
  EXPECT_EQ(no_patterns.status, 2);
  EXPECT_NE(no_patterns.err.find("-e audit needs --audit PATTERNS"), std::string::npos)
      << no_patterns.err;
  const CommandResult no_module = run_command(rtrace + "-e memory --audit 'g_*' -x true");
  EXPECT_EQ(no_module.status, 2);
  EXPECT_NE(no_module.err.find("--audit needs the audit module (-e audit)"), std::string::npos)
      << no_module.err;
  const CommandResult comma = run_command(rtrace + "-e audit --audit 'a,b' -x true");
  EXPECT_EQ(comma.status, 2);
  EXPECT_NE(comma.err.find("a pattern must not contain ','"), std::string::npos) << comma.err;
}

// ---- every module with the memory and file modules -----------------------------------------

// The RESR lines ("flags type (description)") a module registers, in its order.
std::vector<std::string> types_of(const std::string& module) {
  if (module == "memory") {
    return {"0 memory (memory allocation in bytes)"};
  }
  if (module == "file") {
    return {"0 fd (file descriptor)", "0 fp (file pointer)"};
  }
  if (module == "memtransfer") {
    return {"0 memtransfer (memory transfer operations in bytes)"};
  }
  if (module == "gobject") {
    return {"1 gobject (GObject instance)"};
  }
  if (module == "qobject") {
    return {"0 qobject (QObject instance)"};
  }
  if (module == "audit") {
    return {"0 audit (virtual audit resource)"};
  }
  return {};  // pagemap: no calls, no type
}

// What the header of a trace recorded with `modules` (the order of -e) must announce: the
// modules in that order (the file module twice, as the original), the resource types in that
// order with ids 1, 2, ...; `id` maps each type's name to its id.
struct ExpectedHeader {
  std::vector<std::pair<std::uint32_t, std::string>> modules{{0, "main 1.0"}};
  std::vector<std::string> resources;
  std::map<std::string, std::uint32_t> id;
};

ExpectedHeader header_for(const std::vector<std::string>& modules) {
  ExpectedHeader header;
  for (const std::string& module : modules) {
    for (int i = module == "file" ? 2 : 1; i > 0; --i) {
      header.modules.emplace_back(static_cast<std::uint32_t>(header.modules.size()),
                                  module + " 1.0");
    }
    for (const std::string& type : types_of(module)) {
      const auto next = static_cast<std::uint32_t>(header.resources.size() + 1);
      header.resources.push_back(std::to_string(next) + " " + type);
      const std::size_t name_at = type.find(' ') + 1;
      header.id[type.substr(name_at, type.find(' ', name_at) - name_at)] = next;
    }
  }
  return header;
}

// Checks a trace of a program that called announce_files(), recorded with `modules`: the header
// in the order of -e, the fd and fp records exactly those the program announced, and (with the
// memory module) memory records.
void expect_header_and_files(const TraceDecoder& trace, const std::vector<std::string>& modules,
                             const std::string& output) {
  const ExpectedHeader header = header_for(modules);
  EXPECT_EQ(trace.modules, header.modules);
  EXPECT_EQ(trace.resources, header.resources);
  ASSERT_EQ(header.id.count("fd"), 1U);
  const std::vector<std::string> fd = announced_files(output, {"open", "close"});
  ASSERT_EQ(fd.size(), 2U) << output;
  EXPECT_EQ(describe_objects(trace, header.id.at("fd")), fd);
  const std::vector<std::string> fp = announced_files(output, {"fopen", "fclose"});
  ASSERT_EQ(fp.size(), 2U) << output;
  EXPECT_EQ(describe_objects(trace, header.id.at("fp")), fp);
  if (header.id.count("memory") != 0) {
    EXPECT_FALSE(describe_type(trace, header.id.at("memory")).empty());  // fopen's FILE, at least
  }
}

// The orders each module is recorded in below: first, between file and memory, last.
std::vector<std::vector<std::string>> orders_with_file_and_memory(const std::string& module) {
  return {{module, "file", "memory"}, {"file", module, "memory"}, {"memory", "file", module}};
}

// A module of the program's own kind with the file and memory modules, in every order: its
// records are those the program announces (as when it is alone), the file module's are exactly
// the program's own descriptor and stream calls, and the ids follow -e. `module_records`: the
// module's records in the trace, given its type id; `announced`: those the program announced.
template <typename ModuleRecords, typename Announced>
void expect_same_records_with_file_and_memory(const std::string& module,
                                              const std::string& program_name,
                                              std::size_t expected_count,
                                              ModuleRecords module_records, Announced announced,
                                              const std::string& options = "",
                                              const std::string& environment = "") {
  for (const std::vector<std::string>& modules : orders_with_file_and_memory(module)) {
    SCOPED_TRACE(modules[0] + ":" + modules[1] + ":" + modules[2]);
    const ScratchDir files;
    const TracedRun run(modules, program(program_name), options,
                        environment + "ANNOUNCE_FILES_IN='" + files.path().string() + "' ");
    ASSERT_EQ(run.result().status, 0) << run.result().err;
    const TraceDecoder trace = run.decode();
    expect_header_and_files(trace, modules, run.result().out);
    const std::vector<std::string> expected = announced(run.result().out);
    EXPECT_EQ(expected.size(), expected_count) << run.result().out;
    EXPECT_EQ(module_records(trace, header_for(modules).id.at(module)), expected);
    // The report counts each type's calls; -lc finds no descriptor or stream left open, and the
    // module's own leaks exactly when it has objects that live on (gobject, qobject).
    const std::string type = types_of(module).front().substr(2);  // "qobject (QObject instance)"
    const std::string report = run.rtrace("report --no-resolve");
    for (const std::string& calls :
         {std::string("  fd (file descriptor): 2 calls"),
          std::string("  fp (file pointer): 2 calls"),
          "  " + type + ": " + std::to_string(expected_count) + " calls"}) {
      EXPECT_NE(report.find(calls), std::string::npos) << calls << "\n" << report;
    }
    const std::string leaks = run.rtrace("process -lc -i");
    const std::string none = ":\n# 0 block(s) leaked with total size of 0 bytes\n";
    EXPECT_NE(leaks.find("# Resource - fd (file descriptor)" + none), std::string::npos) << leaks;
    EXPECT_NE(leaks.find("# Resource - fp (file pointer)" + none), std::string::npos) << leaks;
    ASSERT_NE(leaks.find("# Resource - " + type + ":\n"), std::string::npos) << leaks;
    const bool lives_on = module == "gobject" || module == "qobject";
    EXPECT_EQ(leaks.find(fmt::format("# Resource - {}{}", type, none)) == std::string::npos,
              lives_on)
        << leaks;
  }
}

TEST(ModulesWithFileAndMemory, MemtransferRecordsTheSameTransfers) {
  expect_same_records_with_file_and_memory("memtransfer", "memtransfer_calls", 46U, describe_type,
                                           announced_transfers);
}

TEST(ModulesWithFileAndMemory, GObjectRecordsTheSameObjects) {
  expect_same_records_with_file_and_memory("gobject", "gobject_objects", 11U, describe_objects,
                                           announced_objects, "args=1");
}

TEST(ModulesWithFileAndMemory, QObjectRecordsTheSameObjects) {
  expect_same_records_with_file_and_memory("qobject", "qobject_objects", 12U, describe_objects,
                                           announced_qobjects);
}

TEST(ModulesWithFileAndMemory, AuditRecordsTheSameCalls) {
  expect_same_records_with_file_and_memory("audit", "audit_calls", 9U, describe_calls,
                                           announced_calls, std::string("audit=") + kAuditPatterns,
                                           audit_environment());
}

// The defect this guards against: in a program whose libraries allocate in their constructors
// (Qt, the C++ runtime), the session is set up before librtrace-main.so's constructors ran, and
// the modules after the first one registered at their first call instead, out of -e order.
// Through `rtrace record -e`, as a user records.
TEST(ModulesWithFileAndMemory, RecordGivesTheIdsInTheOrderOfEWhateverLoadsFirst) {
  for (const std::string modules :
       {"file:qobject:memory", "qobject:memory:file", "memory:file:qobject",
        "file:gobject:memtransfer:memory", "memtransfer:pagemap:gobject:file:memory"}) {
    SCOPED_TRACE(modules);
    const ScratchDir out;
    const ScratchDir files;
    const CommandResult recorded =
        run_command("ANNOUNCE_FILES_IN='" + files.path().string() + "' RTRACE_LIBDIR='" +
                    std::string(RTRACE_TRACER_LIBS) + "' '" +
                    (build_dir() / "bin" / "rtrace").string() + "' record -q -e " + modules +
                    " -o '" + out.path().string() + "' -x " + program("qobject_objects"));
    ASSERT_EQ(recorded.status, 0) << recorded.err;
    fs::path trace_path;
    for (const auto& entry : fs::directory_iterator(out.path())) {
      if (entry.path().extension() == ".rtrace") {
        trace_path = entry.path();
      }
    }
    const TraceDecoder trace = decode_file(trace_path.string());
    EXPECT_TRUE(trace.complete()) << trace.error();
    std::vector<std::string> names;
    std::istringstream list(modules);
    for (std::string name; std::getline(list, name, ':');) {
      names.push_back(name);
    }
    expect_header_and_files(trace, names, recorded.out);
    if (std::find(names.begin(), names.end(), "qobject") != names.end()) {
      EXPECT_EQ(describe_objects(trace, header_for(names).id.at("qobject")),
                announced_qobjects(recorded.out));
    }
  }
}

}  // namespace
}  // namespace rtrace::test
