// The tracer end to end: real programs traced through LD_PRELOAD, their traces decoded by the
// post-processor's binary reader (trace_decoder.h) and compared with what the programs say they
// did.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/test_paths.h"
#include "trace_decoder.h"

namespace rtrace::test {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;

std::string program(const std::string& name) {
  return std::string(RTRACE_TRACER_PROGRAMS) + "/" + name;
}

std::string preload() {
  const std::string libs = RTRACE_TRACER_LIBS;
  return libs + "/librtrace-main.so:" + libs + "/librtrace-memory.so";
}

// Runs `command` traced in managed mode; the traces land in <scratch>/out.
CommandResult run_traced(const ScratchDir& scratch, const std::string& command,
                         const std::string& options = "start=1") {
  fs::create_directories(scratch / "out");
  return run_command("LD_PRELOAD=" + preload() + " RTRACE_OPTIONS='" + options +
                     ",managed=" + (scratch / "out").string() + "' " + command);
}

std::vector<fs::path> trace_files(const ScratchDir& scratch) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(scratch / "out")) {
    files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TraceDecoder decode_only_trace(const ScratchDir& scratch) {
  const auto files = trace_files(scratch);
  EXPECT_EQ(files.size(), 1U);
  if (files.empty()) {
    return TraceDecoder{};
  }
  TraceDecoder trace = decode_file(files.front().string());
  EXPECT_TRUE(trace.complete()) << trace.error();
  return trace;
}

// The value of `key=` in a program's output.
std::string printed(const std::string& output, const std::string& key) {
  const std::string spaced = " " + key + "=";
  const std::string text = " " + output;
  auto at = text.find(spaced);
  if (at == std::string::npos) {
    at = text.find("\n" + key + "=");
  }
  if (at == std::string::npos) {
    return {};
  }
  const auto begin = at + key.size() + 2;
  return text.substr(begin, text.find_first_of(" \n", begin) - begin);
}

std::uint64_t printed_number(const std::string& output, const std::string& key) {
  return std::stoull(printed(output, key), nullptr, 0);
}

// "name(size) = 0xid" / "name(0xid)" in the text protocol's spirit, for readable comparisons.
std::string describe(const DecodedCall& call) {
  std::ostringstream out;
  out << std::hex;
  if (call.kind == 2) {
    out << call.name << "(" << std::dec << call.size << ") = 0x" << std::hex << call.id;
  } else {
    out << call.name << "(0x" << call.id << ")";
  }
  return out.str();
}

std::string hex(std::uint64_t value) {
  std::ostringstream out;
  out << "0x" << std::hex << value;
  return out.str();
}

// The calls whose frame 0 lies in the mapping of `path` (what the program itself called).
std::vector<DecodedCall> calls_from(const TraceDecoder& trace, const std::string& path) {
  std::vector<DecodedCall> result;
  for (const auto& call : trace.calls) {
    if (call.kind == 1 && call.frames.empty()) {
      result.push_back(call);  // frees carry no backtrace: keep them, filter by id below
      continue;
    }
    for (const auto& mapping : trace.mappings) {
      if (mapping.path == path && !call.frames.empty() && call.frames[0] >= mapping.from &&
          call.frames[0] < mapping.to) {
        result.push_back(call);
        break;
      }
    }
  }
  return result;
}

std::vector<DecodedCall> calls_of_size(const TraceDecoder& trace, std::uint32_t size) {
  std::vector<DecodedCall> result;
  for (const auto& call : trace.calls) {
    if (call.kind == 2 && call.size == size) {
      result.push_back(call);
    }
  }
  return result;
}

std::uint64_t monotonic_ms() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1000 +
         static_cast<std::uint64_t>(now.tv_nsec) / 1000000;
}

TEST(TracerTest, RegistryComesFirstAndMapsCoverTheProgram) {
  ScratchDir scratch;
  const std::uint64_t before_ms = monotonic_ms();
  const auto result = run_traced(scratch, program("memory_calls"));
  const std::uint64_t after_ms = monotonic_ms();
  ASSERT_EQ(result.status, 0) << result.err;
  const TraceDecoder trace = decode_only_trace(scratch);
  for (const auto& call : trace.calls) {
    EXPECT_GE(call.timestamp, static_cast<std::uint32_t>(before_ms));
    EXPECT_LE(call.timestamp, static_cast<std::uint32_t>(after_ms));
  }
  ASSERT_GE(trace.packet_order.size(), 6U);
  EXPECT_THAT(std::vector<std::string>(trace.packet_order.begin(), trace.packet_order.begin() + 5),
              ElementsAre("PINF", "MINF", "MINF", "RESR", "MMAP"));
  EXPECT_EQ(trace.pid, std::stoul(trace_files(scratch).front().filename().string()));
  EXPECT_EQ(trace.process, program("memory_calls"));
  EXPECT_EQ(trace.depth, 10U);
  EXPECT_THAT(trace.modules, ElementsAre(std::pair<std::uint32_t, std::string>{0, "main 1.0"},
                                         std::pair<std::uint32_t, std::string>{1, "memory 1.0"}));
  EXPECT_THAT(trace.resources, ElementsAre("1 0 memory (memory allocation in bytes)"));
  const auto has_mapping = [&](const std::string& path) {
    return std::any_of(trace.mappings.begin(), trace.mappings.end(),
                       [&](const DecodedMapping& m) { return m.path == path; });
  };
  EXPECT_TRUE(has_mapping(program("memory_calls")));
  EXPECT_TRUE(has_mapping("[vdso]"));
  EXPECT_EQ(trace.heap_infos, 1U);
  const auto name = trace_files(scratch).front().filename().string();
  EXPECT_EQ(name.substr(name.find('-')), "-0.rtrace");
}

TEST(TracerTest, EveryAllocationFunctionIsReportedAsTheOriginalDoes) {
  ScratchDir scratch;
  const auto result = run_traced(scratch, program("memory_calls"));
  ASSERT_EQ(result.status, 0) << result.err;
  const TraceDecoder trace = decode_only_trace(scratch);
  const auto& out = result.out;
  const auto id = [&](const std::string& key) { return printed_number(out, key); };
  std::vector<std::string> described;
  std::set<std::uint64_t> program_ids{0};
  for (const auto& key : {"a", "c", "r", "r2", "m", "al", "me", "v", "pv", "ra"}) {
    program_ids.insert(id(key));
  }
  for (const auto& call : calls_from(trace, program("memory_calls"))) {
    if (program_ids.count(call.id) != 0) {
      described.push_back(describe(call));
    }
  }
  EXPECT_THAT(
      described,
      ElementsAre("malloc(100) = " + hex(id("a")), "free(" + hex(id("a")) + ")", "free(0x0)",
                  "calloc(240) = " + hex(id("c")), "malloc(50) = " + hex(id("r")),
                  "realloc(" + hex(id("r")) + ")", "realloc(300) = " + hex(id("r2")),
                  "posix_memalign(64) = " + hex(id("m")), "aligned_alloc(128) = " + hex(id("al")),
                  "memalign(100) = " + hex(id("me")), "valloc(10) = " + hex(id("v")),
                  "pvalloc(10) = " + hex(id("pv")), "reallocarray(32) = " + hex(id("ra")),
                  "realloc(" + hex(id("r2")) + ")", "free(" + hex(id("c")) + ")",
                  "free(" + hex(id("m")) + ")", "free(" + hex(id("al")) + ")",
                  "free(" + hex(id("me")) + ")", "free(" + hex(id("v")) + ")",
                  "free(" + hex(id("pv")) + ")", "free(" + hex(id("ra")) + ")"))
      << trace.calls.size();
}

TEST(TracerTest, FrameZeroIsTheCallerOfMalloc) {
  ScratchDir scratch;
  const auto result = run_traced(scratch, program("memory_calls"));
  ASSERT_EQ(result.status, 0) << result.err;
  const TraceDecoder trace = decode_only_trace(scratch);
  const auto leaf = printed_number(result.out, "leaf_malloc");
  auto first = calls_of_size(trace, 100);
  first.erase(std::remove_if(first.begin(), first.end(),
                             [](const DecodedCall& call) { return call.name != "malloc"; }),
              first.end());
  ASSERT_EQ(first.size(), 1U);
  ASSERT_GE(first[0].frames.size(), 2U);
  EXPECT_GT(first[0].frames[0], leaf);
  EXPECT_LT(first[0].frames[0], leaf + 64)
      << "frame 0 " << hex(first[0].frames[0]) << " is not inside leaf_malloc at " << hex(leaf);
  // Frees carry no backtrace unless -A.
  for (const auto& call : trace.calls) {
    if (call.kind == 1) {
      EXPECT_TRUE(call.frames.empty());
    }
  }
}

TEST(TracerTest, OptionsShapeBacktracesAndTimestamps) {
  ScratchDir scratch;
  const auto result = run_traced(scratch, program("memory_calls"),
                                 "start=1,depth=3,timestamps=0,free-backtraces=1");
  ASSERT_EQ(result.status, 0) << result.err;
  const TraceDecoder trace = decode_only_trace(scratch);
  EXPECT_EQ(trace.depth, 3U);
  bool saw_free = false;
  for (const auto& call : trace.calls) {
    EXPECT_EQ(call.timestamp, 0U);
    EXPECT_LE(call.frames.size(), 3U);
    if (call.kind == 1 && call.id == printed_number(result.out, "a")) {
      saw_free = true;
      EXPECT_FALSE(call.frames.empty());
    }
  }
  EXPECT_TRUE(saw_free);

  ScratchDir with_args;
  ASSERT_EQ(run_traced(with_args, program("memory_calls"), "start=1,args=1").status, 0);
  const TraceDecoder argued = decode_only_trace(with_args);
  std::vector<std::string> alignments;
  for (const auto& call : argued.calls) {
    for (const auto& [name, value] : call.args) {
      std::string line = call.name;
      line += " $" + name;
      line += " = " + value;
      alignments.push_back(line);
    }
  }
  EXPECT_THAT(alignments, ElementsAre("posix_memalign $alignment = 32",
                                      "aligned_alloc $alignment = 64", "memalign $alignment = 64"));

  ScratchDir sized;
  ASSERT_EQ(run_traced(sized, program("memory_calls"), "start=1,sizes=100;240").status, 0);
  const TraceDecoder selective = decode_only_trace(sized);
  for (const auto& call : selective.calls) {
    if (call.kind == 2) {
      EXPECT_EQ(!call.frames.empty(), call.size == 100 || call.size == 240) << describe(call);
    }
  }
}

TEST(TracerTest, CxxOperatorsAreReportedUnderTheirOwnNames) {
  ScratchDir scratch;
  const auto result = run_traced(scratch, program("cxx_operators"));
  ASSERT_EQ(result.status, 0) << result.err;
  const TraceDecoder trace = decode_only_trace(scratch);
  std::map<std::uint64_t, std::string> allocated_by;
  std::vector<std::string> pairs;
  for (const auto& call : trace.calls) {
    if (call.kind == 2 && call.size >= 11 && call.size <= 18) {
      allocated_by[call.id] = std::to_string(call.size) + " " + call.name;
    } else if (call.kind == 1 && allocated_by.count(call.id) != 0) {
      pairs.push_back(allocated_by[call.id] + " / " + call.name);
      allocated_by.erase(call.id);
    }
  }
  EXPECT_THAT(
      pairs,
      ElementsAre("11 operator new(unsigned long) / operator delete(void*)",
                  "12 operator new[](unsigned long) / operator delete[](void*)",
                  "13 operator new(unsigned long, std::nothrow_t const&) / operator delete(void*, "
                  "std::nothrow_t const&)",
                  "14 operator new[](unsigned long, std::nothrow_t const&) / operator "
                  "delete[](void*, std::nothrow_t const&)",
                  "15 operator new(unsigned long, std::align_val_t) / operator delete(void*, "
                  "std::align_val_t)",
                  "16 operator new[](unsigned long, std::align_val_t) / operator delete[](void*, "
                  "std::align_val_t)",
                  "17 operator new(unsigned long) / operator delete(void*, unsigned long)",
                  "18 operator new[](unsigned long) / free"));
  // The real operators' own malloc calls are not recorded a second time.
  for (const auto& call : trace.calls) {
    if (call.size >= 11 && call.size <= 18) {
      EXPECT_NE(call.name, "malloc") << describe(call);
    }
  }
}

// The test plays the recorder: a UNIX socket, one decoder per connection.
class SocketRecorder {
 public:
  explicit SocketRecorder(const ScratchDir& scratch) : path_((scratch / "socket").string()) {
    listener_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    path_.copy(address.sun_path, sizeof address.sun_path - 1);
    EXPECT_EQ(::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    EXPECT_EQ(::listen(listener_, 16), 0);
    accepter_ = std::thread([this] { accept_loop(); });
  }
  SocketRecorder(const SocketRecorder&) = delete;
  SocketRecorder& operator=(const SocketRecorder&) = delete;
  ~SocketRecorder() { stop(); }

  // Waits for every connection to end; returns one decoder per connection.
  std::vector<std::unique_ptr<TraceDecoder>>& stop() {
    if (accepter_.joinable()) {
      ::shutdown(listener_, SHUT_RDWR);
      accepter_.join();
      for (auto& reader : readers_) {
        reader.join();
      }
      ::close(listener_);
    }
    return decoders_;
  }
  const std::string& path() const { return path_; }

 private:
  void accept_loop() {
    for (;;) {
      const int connection = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (connection < 0) {
        return;
      }
      decoders_.push_back(std::make_unique<TraceDecoder>());
      TraceDecoder* decoder = decoders_.back().get();
      decoder->set_keep_calls(false);
      decoder->leaks.count_sizes(2000, 2999);
      readers_.emplace_back([connection, decoder] {
        decode_stream(connection, *decoder);
        ::close(connection);
      });
    }
  }

  std::string path_;
  int listener_ = -1;
  std::thread accepter_;
  std::vector<std::thread> readers_;
  std::vector<std::unique_ptr<TraceDecoder>> decoders_;
};

void expect_exact_threads_trace(const TraceDecoder& trace, const std::string& out) {
  EXPECT_TRUE(trace.complete()) << trace.error();
  EXPECT_EQ(trace.leaks.false_frees(), 0U);
  EXPECT_EQ(trace.leaks.double_allocations(), 0U);
  std::uint64_t leaks = 0;
  std::uint64_t leaked_bytes = 0;
  for (const auto& [id, size] : trace.leaks.live()) {
    if (size >= 2000 && size < 3000) {
      ++leaks;
      leaked_bytes += size;
    }
  }
  EXPECT_EQ(leaks, printed_number(out, "leaks"));
  EXPECT_EQ(leaked_bytes, printed_number(out, "leaked_bytes"));
}

TEST(TracerTest, ManyThreadsLoseNothingAndKeepEveryAddressHistoryTrue) {
  ScratchDir scratch;
  SocketRecorder recorder(scratch);
  const auto result = run_command("LD_PRELOAD=" + preload() + " RTRACE_SOCKET=" + recorder.path() +
                                  " RTRACE_OPTIONS=start=1 " + program("threads") + " 8 1000000");
  ASSERT_EQ(result.status, 0) << result.err;
  auto& traces = recorder.stop();
  ASSERT_EQ(traces.size(), 1U);
  const TraceDecoder& trace = *traces.front();
  expect_exact_threads_trace(trace, result.out);
  EXPECT_EQ(trace.leaks.counted_allocations(), printed_number(result.out, "allocs"));
  EXPECT_EQ(trace.leaks.counted_frees(), printed_number(result.out, "frees"));
  EXPECT_GE(trace.leaks.counted_allocations() + trace.leaks.counted_frees(), 8000000U);
}

// Eight threads hand every block they allocate to the next one through a queue, which frees it
// (the address goes straight back to other threads' mallocs); a known set is kept on purpose.
// `rtrace process -l` must list exactly the kept blocks: no false leak, none missed.
TEST(TracerTest, CrossThreadFreesThroughQueuesLeakExactlyTheKeptBlocks) {
  ScratchDir scratch;
  const auto result = run_traced(scratch, program("queue_threads") + " 8 20000");
  ASSERT_EQ(result.status, 0) << result.err;
  std::set<std::string> kept;
  std::istringstream printed_lines(result.out);
  for (std::string line; std::getline(printed_lines, line);) {
    if (line.rfind("kept=", 0) == 0) {
      kept.insert(line.substr(5));
    }
  }
  EXPECT_EQ(kept.size(), 8U * 199U);  // blocks 0, 101, ..., 19998 of each thread
  const TraceDecoder trace = decode_only_trace(scratch);
  EXPECT_EQ(trace.leaks.false_frees(), 0U);
  EXPECT_EQ(trace.leaks.double_allocations(), 0U);

  const CommandResult leaks =
      run_command("'" + (build_dir() / "bin" / "rtrace").string() + "' process -l -i '" +
                  trace_files(scratch)[0].string() + "'");
  ASSERT_EQ(leaks.status, 0) << leaks.err;
  const std::regex leak_line(R"(^\d+\. (\[[^\]]*\] )?malloc\((\d+)\) = (0x[0-9a-f]+)$)");
  std::set<std::string> reported;
  std::istringstream report(leaks.out);
  for (std::string line; std::getline(report, line);) {
    std::smatch match;
    if (std::regex_match(line, match, leak_line)) {
      const auto size = std::stoul(match[2].str());
      if (size >= 3000 && size < 4000) {
        reported.insert(match[3].str());
      }
    }
  }
  EXPECT_EQ(reported, kept);
}

// Shell text that runs `command` in the background and kills it once it has used no CPU time for
// 10 s or more (hung: blocked for good), or after 300 s or more in all (spinning); its status is
// the command's.
// `command` must exec the program (env does), so that $! is the program.
// A bound on wall time alone would also kill a program merely starved on a loaded machine.
std::string killed_when_hung(const std::string& command) {
  return command +
         " & p=$!; last=; still=0; polls=0; while kill -0 $p 2>/dev/null; do "
         "used=$(cut -d' ' -f14,15 /proc/$p/stat 2>/dev/null); "
         "if [ \"$used\" = \"$last\" ]; then still=$((still + 1)); else still=0; fi; last=$used; "
         "polls=$((polls + 1)); if [ $still -ge 500 ] || [ $polls -ge 15000 ]; then kill -KILL $p; "
         "fi; sleep 0.02; done; wait $p";
}

// _exit is async-signal-safe: a handler calling it while the program is inside malloc (holding
// the arena lock) must not hang the tracer, and the trace must still be whole.
TEST(TracerTest, ExitFromASignalHandlerNeverHangs) {
  for (int run = 0; run < 50; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    ScratchDir scratch;
    SocketRecorder recorder(scratch);
    const auto result = run_command(
        killed_when_hung("env LD_PRELOAD=" + preload() + " RTRACE_SOCKET=" + recorder.path() +
                         " RTRACE_OPTIONS=start=1 " + program("exit_in_handler") + " 20000"));
    ASSERT_EQ(result.status, 3) << "the program hung (killed) or failed";
    auto& traces = recorder.stop();
    ASSERT_EQ(traces.size(), 1U);
    const TraceDecoder& trace = *traces.front();
    EXPECT_TRUE(trace.complete()) << trace.error();
    EXPECT_GT(trace.call_count, 10U);
    EXPECT_EQ(trace.leaks.false_frees(), 0U);
    EXPECT_EQ(trace.leaks.double_allocations(), 0U);
  }
}

TEST(TracerTest, UnbufferedModeWritesTheSameHistory) {
  ScratchDir scratch;
  const auto result =
      run_traced(scratch, program("threads") + " 4 20000", "start=1,buffered=0,depth=4");
  ASSERT_EQ(result.status, 0) << result.err;
  const TraceDecoder trace = decode_only_trace(scratch);
  expect_exact_threads_trace(trace, result.out);
}

TEST(TracerTest, ShortLivedThreadsHandTheirBuffersOn) {
  ScratchDir scratch;
  const auto result = run_traced(scratch, program("threads") + " 16 3000 25", "start=1,depth=2");
  ASSERT_EQ(result.status, 0) << result.err;
  TraceDecoder trace = decode_only_trace(scratch);
  expect_exact_threads_trace(trace, result.out);
}

// The compact format names each call's thread (THREAD records, docs/format.md), here of short-lived
// threads that hand their rings on to the next ones and free each other's blocks (which the
// per-thread references cannot name: written by value). Every call carries the id of a thread of
// the program, each of the 16 x 25 threads has its own, and `rtrace process` reads the trace as
// it reads the same trace converted to the sp-rtrace protocol (which has no thread ids).
// The thread ids the calls of `trace` carry.
std::set<std::uint64_t> threads_of(const TraceDecoder& trace) {
  std::set<std::uint64_t> threads;
  for (const DecodedCall& call : trace.calls) {
    threads.insert(call.thread);
  }
  return threads;
}

TEST(TracerTest, CompactTraceNamesEachCallsThread) {
  ScratchDir scratch;
  const CommandResult program_run =
      run_traced(scratch, program("threads") + " 16 3000 25", "start=1,depth=2,compact=1");
  ASSERT_EQ(program_run.status, 0) << program_run.err;
  const std::set<std::uint64_t> threads = threads_of(decode_only_trace(scratch));
  expect_exact_threads_trace(decode_only_trace(scratch), program_run.out);
  EXPECT_EQ(threads.count(0), 0U);
  EXPECT_GE(threads.size(), 16U * 25U);
  EXPECT_LE(threads.size(), 16U * 25U + 1U);  // and the main thread's, if it allocated

  const std::string rtrace = "'" + (build_dir() / "bin" / "rtrace").string() + "'";
  const std::string compact = trace_files(scratch)[0].string();
  const auto converted = run_command(rtrace + " process --to binary -i '" + compact + "' -o '" +
                                     (scratch / "converted.rtrace").string() + "'");
  ASSERT_EQ(converted.status, 0) << converted.err;
  const auto text_of = [&rtrace](const std::string& path) {
    return run_command(rtrace + " process --strict -i '" + path + "'").out;
  };
  const std::string text = text_of(compact);
  EXPECT_GT(text.size(), 100000U);
  EXPECT_EQ(text_of((scratch / "converted.rtrace").string()), text);
}

// Also in a program whose libraries allocate in their constructors before the tracer's runs (any
// C++ program: libstdc++'s exception pool), where the set-up happens inside that first
// allocation and must still install the crash handlers and start the control thread.
TEST(TracerTest, EverythingBeforeAnAbnormalEndIsWritten) {
  for (const std::string name : {"lifecycle", "lifecycle_libstdcxx"}) {
    for (const std::string mode : {"_exit", "abort", "segv"}) {
      ScratchDir scratch;
      const auto result = run_traced(scratch, program(name) + " " + mode);
      EXPECT_NE(mode == "_exit", result.status != 0) << name << " " << mode;
      const TraceDecoder trace = decode_only_trace(scratch);
      EXPECT_EQ(calls_of_size(trace, 1111).size(), 3U) << name << " " << mode;
    }
  }
}

// The crash handler runs on an alternate signal stack: a thread that exhausted its own stack
// still writes the whole trace out (each traced thread gets one with its ring).
TEST(TracerTest, StackOverflowStillWritesTheWholeTrace) {
  for (const std::string mode : {"overflow", "thread-overflow"}) {
    ScratchDir scratch;
    // No timestamps: the control thread wakes (and drains) only every 10 ms, never in the
    // microseconds between the markers and the crash.
    const auto result =
        run_traced(scratch, program("lifecycle") + " " + mode, "start=1,timestamps=0");
    EXPECT_NE(result.status, 0) << mode;
    const TraceDecoder trace = decode_only_trace(scratch);
    EXPECT_EQ(calls_of_size(trace, 1111).size(), 3U) << mode;
  }
}

// A traced thread gets an alternate signal stack with its first traced call, unless it has one
// of its own already: that one stays.
TEST(TracerTest, ThreadsGetAnAlternateSignalStackUnlessTheyHaveTheirOwn) {
  ScratchDir scratch;
  const auto result = run_traced(scratch, program("lifecycle") + " altstack");
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(printed(result.out, "main_altstack"), "1");
  EXPECT_EQ(printed(result.out, "own_altstack_kept"), "1");
  const TraceDecoder trace = decode_only_trace(scratch);
  EXPECT_EQ(calls_of_size(trace, 1111).size(), 4U);
}

// quick_exit ends the process inside the C library, after the at_quick_exit handlers: the trace
// holds what was buffered and what the program's handler allocated.
TEST(TracerTest, QuickExitWritesTheWholeTraceAfterTheProgramsHandlers) {
  ScratchDir scratch;
  const auto result =
      run_traced(scratch, program("lifecycle") + " quick_exit", "start=1,timestamps=0");
  ASSERT_EQ(result.status, 0) << result.err;
  const TraceDecoder trace = decode_only_trace(scratch);
  EXPECT_EQ(calls_of_size(trace, 1111).size(), 3U);
  EXPECT_EQ(calls_of_size(trace, 5555).size(), 1U);
}

TEST(TracerTest, ExecWritesTheTraceBeforeAndTheNewImageStartsANewOne) {
  ScratchDir scratch;
  const auto result = run_traced(scratch, program("lifecycle") + " exec");
  ASSERT_EQ(result.status, 0) << result.err;
  const auto files = trace_files(scratch);
  ASSERT_EQ(files.size(), 2U);
  const TraceDecoder before = decode_file(files[0].string());
  const TraceDecoder after = decode_file(files[1].string());
  EXPECT_TRUE(before.complete()) << before.error();
  EXPECT_TRUE(after.complete()) << after.error();
  EXPECT_EQ(before.pid, after.pid);
  EXPECT_EQ(calls_of_size(before, 1111).size(), 3U);
  EXPECT_EQ(calls_of_size(before, 2222).size(), 0U);
  EXPECT_EQ(calls_of_size(after, 2222).size(), 1U);
}

TEST(TracerTest, ForkedChildIsTracedOnlyWhenAsked) {
  for (const std::string mode : {"fork", "fork-exit"}) {
    ScratchDir scratch;
    ASSERT_EQ(run_traced(scratch, program("lifecycle") + " " + mode).status, 0);
    const TraceDecoder parent = decode_only_trace(scratch);
    EXPECT_EQ(calls_of_size(parent, 1111).size(), 3U);
    EXPECT_EQ(calls_of_size(parent, 3333).size(), 0U);
    EXPECT_EQ(calls_of_size(parent, 4444).size(), 1U);
  }
  ScratchDir scratch;
  ASSERT_EQ(run_traced(scratch, program("lifecycle") + " fork", "start=1,follow-forks=1").status,
            0);
  const auto files = trace_files(scratch);
  ASSERT_EQ(files.size(), 2U);
  std::map<std::uint32_t, std::string> sizes_by_pid;
  std::vector<TraceDecoder> traces;
  for (const auto& file : files) {
    traces.push_back(decode_file(file.string()));
    EXPECT_TRUE(traces.back().complete()) << traces.back().error();
  }
  const bool first_is_parent = !calls_of_size(traces[0], 1111).empty();
  const TraceDecoder& parent = traces[first_is_parent ? 0 : 1];
  const TraceDecoder& child = traces[first_is_parent ? 1 : 0];
  EXPECT_NE(parent.pid, child.pid);
  EXPECT_EQ(calls_of_size(parent, 4444).size(), 1U);
  EXPECT_EQ(calls_of_size(parent, 3333).size(), 0U);
  EXPECT_EQ(calls_of_size(child, 3333).size(), 1U);
  EXPECT_EQ(calls_of_size(child, 1111).size(), 0U);
  EXPECT_EQ(child.packet_order.front(), "PINF");
}

// A followed child that only execs records nothing before the exec: it leaves no trace of its
// own (an empty one per fork+exec, before), only its new image does.
TEST(TracerTest, FollowedForkThatExecsLeavesNoEmptyTrace) {
  ScratchDir scratch;
  ASSERT_EQ(
      run_traced(scratch, program("lifecycle") + " fork-exec", "start=1,follow-forks=1").status, 0);
  const auto files = trace_files(scratch);
  ASSERT_EQ(files.size(), 2U);
  std::size_t parent_markers = 0;
  std::size_t child_markers = 0;
  for (const auto& file : files) {
    const TraceDecoder trace = decode_file(file.string());
    EXPECT_TRUE(trace.complete()) << trace.error();
    EXPECT_FALSE(trace.calls.empty()) << file;
    parent_markers += calls_of_size(trace, 4444).size();
    child_markers += calls_of_size(trace, 2222).size();
  }
  EXPECT_EQ(parent_markers, 1U);
  EXPECT_EQ(child_markers, 1U);
}

// Like bash, the program brings its own getenv/setenv over a private table that does not see the
// tracer's variables.
TEST(TracerTest, ProgramWithItsOwnEnvironmentFunctionsIsTraced) {
  ScratchDir scratch;
  const auto result = run_traced(scratch, program("own_environment"));
  ASSERT_EQ(result.status, 0) << result.err;
  const TraceDecoder trace = decode_only_trace(scratch);
  const auto markers = calls_of_size(trace, 4321);
  ASSERT_EQ(markers.size(), 1U);
  EXPECT_EQ(markers[0].id, printed_number(result.out, "marker"));
  EXPECT_EQ(trace.modules.size(), 2U);
}

// A library the program needs allocates in its constructor, which runs before the tracer's own
// constructors: the trace starts at that first allocation.
TEST(TracerTest, AllocationsOfLibraryConstructorsBeforeMainAreRecorded) {
  ScratchDir scratch;
  const auto result = run_traced(scratch, program("ctor_program"));
  ASSERT_EQ(result.status, 0) << result.err;
  const TraceDecoder trace = decode_only_trace(scratch);
  std::vector<std::string> calls;
  for (const auto& call : trace.calls) {
    calls.push_back(call.kind == 2 ? call.name + "(" + std::to_string(call.size) + ")" : call.name);
  }
  // Everything the process allocated, in order: the C program loads no other allocating code.
  EXPECT_THAT(calls, ElementsAre("malloc(3210)", "calloc(3210)", "malloc(77)", "free"));
  std::vector<std::uint64_t> leaked;
  for (const auto& [id, size] : trace.leaks.live()) {
    leaked.push_back(size);
  }
  EXPECT_THAT(leaked, ::testing::UnorderedElementsAre(3210U, 3210U));
}

// The symbol table of `path`: name -> [start, end) as linked.
std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> functions_of(
    const std::string& path) {
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> functions;
  std::istringstream lines(run_command("nm -S --defined-only " + path).out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string address;
    std::string size;
    std::string type;
    std::string name;
    if (fields >> address >> size >> type >> name && (type == "T" || type == "t")) {
      const std::uint64_t start = std::stoull(address, nullptr, 16);
      functions[name] = {start, start + std::stoull(size, nullptr, 16)};
    }
  }
  return functions;
}

// Every allocator entry, called from allocate_all() <- middle() <- [recurse() x recursion <-]
// main():
// frame 0 is the call site in allocate_all, and the frames go on to main (or stop at the depth).
void expect_whole_backtraces(const std::string& name, std::uint32_t depth, int recursion) {
  SCOPED_TRACE(name + " depth=" + std::to_string(depth) +
               " recursion=" + std::to_string(recursion));
  ScratchDir scratch;
  const std::string path = program(name);
  const std::string arguments = recursion > 0 ? " " + std::to_string(recursion - 1) : "";
  const auto result =
      run_traced(scratch, path + arguments, "start=1,depth=" + std::to_string(depth));
  ASSERT_EQ(result.status, 0) << result.err;
  const TraceDecoder trace = decode_only_trace(scratch);
  const auto functions = functions_of(path);
  ASSERT_TRUE(functions.count("_Z6middlev") && functions.count("main") &&
              functions.count("_Z12allocate_allv") && functions.count("_Z7recursei"));
  const std::uint64_t base =
      printed_number(result.out, "middle") - functions.at("_Z6middlev").first;
  const auto function_at = [&](std::uint64_t address) -> std::string {
    for (const auto& [symbol, range] : functions) {
      if (address > base + range.first && address <= base + range.second) {
        return symbol;
      }
    }
    return "?";
  };
  std::vector<std::string> expected{"_Z12allocate_allv", "_Z6middlev"};
  for (int i = 0; i < recursion; ++i) {
    expected.push_back("_Z7recursei");
  }
  expected.push_back("main");
  if (expected.size() > depth) {
    expected.resize(depth);
  }
  std::size_t checked = 0;
  for (const auto& call : trace.calls) {
    if (call.kind != 2 || call.size < 21 || call.size > 29) {
      continue;
    }
    ++checked;
    std::vector<std::string> frames;
    for (std::size_t i = 0; i < call.frames.size() && i < expected.size(); ++i) {
      frames.push_back(function_at(call.frames[i]));
    }
    EXPECT_EQ(frames, expected) << describe(call);
    // Below main: the C library's start-up frames, as many as the depth leaves room for.
    EXPECT_EQ(call.frames.size() >= std::min<std::size_t>(depth, expected.size() + 1), true)
        << describe(call) << " has " << call.frames.size() << " frames";
  }
  EXPECT_EQ(checked, 9U);
}

TEST(TracerTest, EveryAllocatorEntryGetsItsWholeBacktrace) {
  for (const char* name : {"deep_new_O0", "deep_new_O2"}) {
    for (const std::uint32_t depth : {10U, 64U}) {
      expect_whole_backtraces(name, depth, 0);
      expect_whole_backtraces(name, depth, 20);
    }
  }
}

// Every malloc's backtrace in a run of `name` (programs/unwind_shapes.c), depth 64, with the
// address space laid out the same in every run (setarch -R), so that two runs can be compared
// address for address; `unwinder` is RTRACE_UNWINDER's value (empty: the default).
std::vector<std::vector<std::uint64_t>> malloc_backtraces(const std::string& name,
                                                          const std::string& unwinder) {
  ScratchDir scratch;
  fs::create_directories(scratch / "out");
  const auto result = run_command(
      "setarch -R env LD_PRELOAD=" + preload() +
      " RTRACE_OPTIONS='start=1,depth=64,managed=" + (scratch / "out").string() + "'" +
      (unwinder.empty() ? std::string() : " RTRACE_UNWINDER=" + unwinder) + " " + program(name));
  EXPECT_EQ(result.status, 0) << result.err;
  std::vector<std::vector<std::uint64_t>> backtraces;
  for (const auto& call : decode_only_trace(scratch).calls) {
    if (call.kind == 2 && call.name == "malloc" && (call.size <= 30 || call.size == 1000)) {
      backtraces.push_back(call.frames);
    }
  }
  return backtraces;
}

// The tracer's own unwinder (src/tracer/unwind/stack_walker.h) against libunwind's, through the
// whole tracer: malloc at the bottom of chains of many frame shapes 1 to 30 levels deep (alloca,
// large locals, the C library's qsort without frame pointers), and from a signal handler (which the
// fast unwinder leaves to libunwind), in a program built with and one built without frame
// pointers: the same whole backtraces.
TEST(TracerTest, FastUnwinderRecordsTheBacktracesLibunwindDoes) {
  for (const char* name : {"unwind_shapes_fp", "unwind_shapes_nofp"}) {
    SCOPED_TRACE(name);
    const auto fast = malloc_backtraces(name, "");
    const auto slow = malloc_backtraces(name, "libunwind");
    ASSERT_EQ(fast.size(), 31U);
    EXPECT_EQ(fast, slow);
    for (std::size_t depth = 1; depth <= 30; ++depth) {
      // The leaf, the chain's levels (some through a frame with large locals), qsort's frames,
      // the entry point, main and the C library's start: whole stacks, all within depth 64.
      EXPECT_GE(fast[depth - 1].size(), depth + 6) << "depth " << depth;
      EXPECT_LT(fast[depth - 1].size(), 64U) << "depth " << depth;
    }
  }
}

// The tracer remembers its last walks per thread (src/tracer/unwind/walk_memo.h):
// programs/memo_callers.c calls malloc from one place through two callers of the same shape in turn
// (same call site, same stack pointer) and under chains of other depths. Every call gets its own
// exact stack: leaf, middle, its caller, the chain, main; the first call of each path a walk, the
// repeats remembered ones.
void expect_own_stack_per_caller(const std::string& name) {
  SCOPED_TRACE(name);
  ScratchDir scratch;
  const std::string path = program(name);
  const auto result = run_traced(scratch, path, "start=1,depth=12");
  ASSERT_EQ(result.status, 0) << result.err;
  const auto functions = functions_of(path);
  ASSERT_TRUE(functions.count("middle") && functions.count("main"));
  const std::uint64_t base = printed_number(result.out, "middle") - functions.at("middle").first;
  const auto function_at = [&](std::uint64_t address) -> std::string {
    for (const auto& [symbol, range] : functions) {
      if (address > base + range.first && address <= base + range.second) {
        return symbol;
      }
    }
    return "?";
  };
  std::map<std::uint64_t, std::size_t> calls_per_size;
  for (const auto& call : decode_only_trace(scratch).calls) {
    if (call.kind != 2 || call.name != "malloc" || call.size < 201 || call.size > 213) {
      continue;
    }
    std::vector<std::string> expected{"leaf", "middle", call.size == 202 ? "caller_b" : "caller_a"};
    for (std::uint64_t i = 210; i <= call.size; ++i) {
      expected.push_back("nested");
    }
    expected.push_back("main");
    std::vector<std::string> frames;
    for (std::size_t i = 0; i < call.frames.size() && i < expected.size(); ++i) {
      frames.push_back(function_at(call.frames[i]));
    }
    EXPECT_EQ(frames, expected) << describe(call);
    ++calls_per_size[call.size];
  }
  const std::map<std::uint64_t, std::size_t> expected_calls{{201, 40}, {202, 20}, {210, 3},
                                                            {211, 3},  {212, 3},  {213, 3}};
  EXPECT_EQ(calls_per_size, expected_calls);
}

TEST(TracerTest, RememberedWalksGiveEveryCallerItsOwnStack) {
  expect_own_stack_per_caller("memo_callers_fp");
  expect_own_stack_per_caller("memo_callers_nofp");
}

TEST(TracerTest, ProgramsStartedByTheTracedOneAreTracedOnlyWhenAsked) {
  ScratchDir scratch;
  ASSERT_EQ(run_traced(scratch, program("lifecycle") + " system").status, 0);
  const TraceDecoder parent = decode_only_trace(scratch);
  EXPECT_EQ(calls_of_size(parent, 1111).size(), 3U);

  ScratchDir followed;
  ASSERT_EQ(run_traced(followed, program("lifecycle") + " system", "start=1,follow-forks=1").status,
            0);
  std::size_t with_marker = 0;
  const auto files = trace_files(followed);
  EXPECT_GE(files.size(), 3U);  // the program, the shell system() runs, the program it starts
  for (const auto& file : files) {
    const TraceDecoder trace = decode_file(file.string());
    EXPECT_TRUE(trace.complete()) << trace.error();
    with_marker += calls_of_size(trace, 2222).size();
  }
  EXPECT_EQ(with_marker, 1U);
}

// How many marker blocks of `size` the traces in <scratch>/out hold in all; each trace must be
// whole.
std::size_t markers_in_traces(const ScratchDir& scratch, std::uint32_t size) {
  std::size_t found = 0;
  for (const auto& file : trace_files(scratch)) {
    const TraceDecoder trace = decode_file(file.string());
    EXPECT_TRUE(trace.complete()) << file << ": " << trace.error();
    found += calls_of_size(trace, size).size();
  }
  return found;
}

// The tracer's variables go with every exec even when the program cleared or replaced its
// environment: the new image is traced, the process itself (same pid: env -i) and under
// follow-forks a child whose shell gave it an LD_PRELOAD of its own.
TEST(TracerTest, ExecWithAClearedOrReplacedEnvironmentStaysTraced) {
  const ScratchDir cleared;
  ASSERT_EQ(run_traced(cleared, "env -i " + program("lifecycle") + " after-exec").status, 0);
  EXPECT_EQ(trace_files(cleared).size(), 2U);  // env's, then the program's
  EXPECT_EQ(markers_in_traces(cleared, 2222), 1U);

  const ScratchDir replaced;
  const auto result = run_traced(
      replaced, "bash -c 'LD_PRELOAD=libm.so.6 " + program("lifecycle") + " after-exec; true'",
      "start=1,follow-forks=1");
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(trace_files(replaced).size(), 3U);  // bash, its child, the program
  EXPECT_EQ(markers_in_traces(replaced, 2222), 1U);
}

// A set-user-ID program runs in the dynamic linker's secure mode, which preloads nothing named by
// a path: the trace that ends at its exec says why no trace follows.
TEST(TracerTest, AnExecTheDynamicLinkerWillNotPreloadIntoIsNoted) {
  const ScratchDir scratch;
  std::string target = "/usr/bin/su";  // set-user-ID root: secure for any other user
  if (::geteuid() == 0) {
    // Root's own set-user-ID programs are not secure for root: one of another user's.
    target = (scratch / "suid-true").string();
    fs::copy_file("/usr/bin/true", target);
    ASSERT_EQ(::chown(target.c_str(), 65534, 65534), 0);
    ASSERT_EQ(::chmod(target.c_str(), 04755), 0);
  }
  // The note is a NOTE record of the compact format (the sp-rtrace protocol has none).
  ASSERT_EQ(run_traced(scratch, "bash -c 'exec " + target + " --version' > /dev/null",
                       "start=1,compact=1")
                .status,
            0);
  const auto files = trace_files(scratch);
  ASSERT_EQ(files.size(), 1U);
  const auto read = run_command("'" + (build_dir() / "bin" / "rtrace").string() + "' process '" +
                                files[0].string() + "' > /dev/null");
  EXPECT_EQ(read.status, 0) << read.err;
  EXPECT_NE(read.err.find("warning: writer's note: exec of " + target +
                          ": a set-user-ID or set-group-ID program, into which the dynamic linker "
                          "preloads no library: its new image is not traced\n"),
            std::string::npos)
      << read.err;
}

TEST(TracerTest, MallocFromASignalHandlerIsRecorded) {
  ScratchDir scratch;
  const auto result = run_traced(scratch, program("signal_malloc"));
  ASSERT_EQ(result.status, 0) << result.err;
  const TraceDecoder trace = decode_only_trace(scratch);
  EXPECT_EQ(calls_of_size(trace, 5555).size(), printed_number(result.out, "handled"));
  EXPECT_EQ(trace.leaks.false_frees(), 0U);
  for (const auto& [id, size] : trace.leaks.live()) {
    EXPECT_NE(size, 5555U);
  }
}

TEST(TracerTest, LibraryLoadedAfterStartHasItsMapsBeforeItsCalls) {
  ScratchDir scratch;
  const std::string library = program("libdlopen_target.so");
  const auto result = run_traced(scratch, program("dlopen_program") + " " + library);
  ASSERT_EQ(result.status, 0) << result.err;
  const TraceDecoder trace = decode_only_trace(scratch);
  EXPECT_GE(trace.map_snapshots, 2U);  // after dlopen and after dlclose
  const auto calls = calls_of_size(trace, 6666);
  ASSERT_EQ(calls.size(), 1U);
  ASSERT_FALSE(calls[0].frames.empty());
  const bool resolved =
      std::any_of(trace.mappings.begin(), trace.mappings.end(), [&](const DecodedMapping& mapping) {
        return mapping.path == library && calls[0].frames[0] >= mapping.from &&
               calls[0].frames[0] < mapping.to;
      });
  EXPECT_TRUE(resolved) << "frame 0 " << hex(calls[0].frames[0]) << " not in " << library;
}

TEST(TracerTest, ProgramClosingAllDescriptorsKeepsTracing) {
  ScratchDir scratch;
  const auto result = run_traced(scratch, program("close_fds"));
  ASSERT_EQ(result.status, 0) << result.err;
  const TraceDecoder trace = decode_only_trace(scratch);
  EXPECT_EQ(calls_of_size(trace, 7777).size(), 2U);
  EXPECT_EQ(trace.heap_infos, 1U);
}

// Also in a C++ program (see EverythingBeforeAnAbnormalEndIsWritten): the toggle handler is
// installed there too.
TEST(TracerTest, ToggleSignalStartsAndStopsTracingTwice) {
  for (const std::string name : {"toggle", "toggle_libstdcxx"}) {
    ScratchDir scratch;
    const auto result = run_traced(scratch, program(name), "start=0");
    ASSERT_EQ(result.status, 0) << name << ": " << result.err;
    const auto files = trace_files(scratch);
    ASSERT_EQ(files.size(), 2U) << name;
    const TraceDecoder first = decode_file(files[0].string());
    const TraceDecoder second = decode_file(files[1].string());
    EXPECT_TRUE(first.complete()) << first.error();
    EXPECT_TRUE(second.complete()) << second.error();
    EXPECT_EQ(calls_of_size(first, 1001).size(), 1U) << name;
    EXPECT_EQ(calls_of_size(second, 1003).size(), 1U) << name;
    for (const std::uint32_t size : {1002U, 1004U}) {
      EXPECT_TRUE(calls_of_size(first, size).empty()) << name;
      EXPECT_TRUE(calls_of_size(second, size).empty()) << name;
    }
    EXPECT_EQ(first.packet_order.front(), "PINF");
    EXPECT_EQ(second.packet_order.front(), "PINF");
  }
}

// The tracer brings nothing into a traced process but itself, the C library, the dynamic linker
// and the unwinder it falls back on (libunwind, with its liblzma): no libstdc++, libgcc_s or libm
// that could clash with the program's own.
TEST(TracerTest, LibrariesNeedOnlyTheCLibraryAndTheUnwinder) {
  const std::set<std::string> allowed = {"libc.so.6", "ld-linux-x86-64.so.2", "libunwind.so.8",
                                         "librtrace-main.so"};
  int libraries = 0;
  for (const auto& entry : fs::directory_iterator(RTRACE_TRACER_LIBS)) {
    if (entry.path().extension() != ".so") {
      continue;
    }
    ++libraries;
    const auto result = run_command("readelf -d " + entry.path().string());
    ASSERT_EQ(result.status, 0) << result.err;
    static const std::regex needed(R"(\(NEEDED\).*\[(.*)\])");
    std::istringstream lines(result.out);
    std::string line;
    std::smatch match;
    while (std::getline(lines, line)) {
      if (std::regex_search(line, match, needed)) {
        EXPECT_TRUE(allowed.contains(match[1].str()))
            << entry.path().filename() << " needs " << match[1];
      }
    }
  }
  EXPECT_EQ(libraries, 13);  // main, context, the audit linker and the ten modules
}

TEST(TracerTest, ContextsAreRegisteredAndStampedPerThread) {
  ScratchDir scratch;
  const auto result = run_traced(scratch, program("contexts"));
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(printed_number(result.out, "first"), 1U);
  EXPECT_EQ(printed_number(result.out, "third"), 4U);
  EXPECT_EQ(printed_number(result.out, "last"), 0x80000000U);
  EXPECT_EQ(printed_number(result.out, "thirty-third"), 0U);
  const TraceDecoder trace = decode_only_trace(scratch);
  ASSERT_EQ(trace.contexts.size(), 32U);
  EXPECT_EQ(trace.contexts[0], (std::pair<std::uint32_t, std::string>{1, "ctx1"}));
  EXPECT_EQ(trace.contexts[31], (std::pair<std::uint32_t, std::string>{0x80000000U, "ctx32"}));
  const std::map<std::uint32_t, std::uint32_t> expected{{100, 0}, {101, 1}, {103, 3}, {102, 2},
                                                        {104, 0}, {105, 4}, {106, 0}};
  for (const auto& [size, context] : expected) {
    const auto calls = calls_of_size(trace, size);
    ASSERT_EQ(calls.size(), 1U) << size;
    EXPECT_EQ(calls[0].context, context) << size;
  }
}

TEST(TracerTest, ContextLibraryWorksWithoutTheTracer) {
  const auto result = run_command(program("contexts"));
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(printed_number(result.out, "second"), 2U);
  EXPECT_EQ(printed_number(result.out, "thirty-third"), 0U);
}

}  // namespace
}  // namespace rtrace::test
