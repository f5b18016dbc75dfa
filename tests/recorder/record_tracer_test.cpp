// The whole chain with the real tracer: `rtrace record` / `sp-rtrace` start the original's
// memory test program with librtrace-main.so and librtrace-memory.so, and `rtrace process` finds
// the leaks the original tools found in the same program (fixtures/sp-rtrace/memory/memory.l.txt:
// same call indices, functions and sizes; addresses and times differ from run to run).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

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

// "19. malloc(100)" for every call line, and the `# ` summary lines, in order.
std::vector<std::string> calls_and_summaries(const std::string& text) {
  static const std::regex call(R"(^(\d+)\. (?:@[0-9a-f]+ )?(?:\[[0-9:.]+\] )?(\w+)\((\w+)\).*)");
  std::vector<std::string> found;
  std::istringstream lines(text);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_match(line, m, call)) {
      found.push_back(m[1].str() + ". " + m[2].str() + "(" + m[3].str() + ")");
    } else if (line.starts_with("# ")) {
      found.push_back(line);
    }
  }
  return found;
}

// How many call records a text trace holds (lines "<index>. ...").
std::size_t count_call_records(const std::string& text) {
  static const std::regex call(R"(^\d+\. .*)");
  std::size_t count = 0;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    count += std::regex_match(line, call) ? 1 : 0;
  }
  return count;
}

const std::vector<std::string>& original_leaks() {
  static const std::vector<std::string> leaks =
      calls_and_summaries(read_file(fixture("sp-rtrace/memory/memory.l.txt")));
  return leaks;
}

// The only file in `dir`, which must be named <pid>-0<suffix> (sp-rtrace, --format sp-rtrace) or
// <program>.<pid><suffix> (rtrace record).
fs::path only_file(const fs::path& dir, const std::string& suffix) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    files.push_back(entry.path());
  }
  EXPECT_EQ(files.size(), 1U);
  if (files.empty()) {
    return {};
  }
  const std::string name = files[0].filename().string();
  static const std::regex named(R"(([0-9]+-0|.+\.[0-9]+)(\.rtrace(\.txt)?))");
  std::smatch parts;
  EXPECT_TRUE(std::regex_match(name, parts, named) && parts[2] == suffix) << name;
  return files[0];
}

TEST(RecordTracer, RecordedTraceHasTheOriginalsLeaks) {
  RTRACE_NEEDS_FIXTURES();
  ASSERT_EQ(original_leaks().size(), 8U);  // 6 leaked blocks and the 2 summary lines
  for (const std::string& tool : {bin("rtrace") + " record", bin("sp-rtrace")}) {
    const ScratchDir out;
    const auto r = run_command(tool + " -s -e memory -o " + quote(out.path()) + " -x " +
                               quote(RTRACE_MEMORY_PROGRAM));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "memory done 0\n");
    const fs::path trace = only_file(out.path(), ".rtrace");
    const auto leaks = run_command(bin("rtrace") + " process -l -i " + quote(trace));
    ASSERT_EQ(leaks.status, 0) << leaks.err;
    EXPECT_EQ(calls_and_summaries(leaks.out), original_leaks()) << leaks.out;
  }
}

TEST(RecordTracer, PostProcessedInTheRecorder) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir out;
  const auto r = run_command(bin("sp-rtrace") + " -s -e libsp-rtrace-memory.so -P '-l' -o " +
                             quote(out.path()) + " -x " + quote(RTRACE_MEMORY_PROGRAM));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string text = read_file(only_file(out.path(), ".rtrace.txt"));
  EXPECT_EQ(calls_and_summaries(text), original_leaks()) << text;
  EXPECT_TRUE(text.starts_with("version=2.0, arch=x86_64, timestamp=")) << text;
  EXPECT_NE(text.find(", filter=leaks, backtrace depth=10, origin=rtrace "), std::string::npos);
}

// A real recording converted to text, then text -> binary -> text, comes back the same: the
// tracing modules and the heap information included (a regression test: both were once lost).
TEST(RecordTracer, TrueRecordedThenTextToBinaryToTextLosesNothing) {
  const ScratchDir out;
  const auto r =
      run_command(bin("rtrace") + " record -s -e memory -o " + quote(out.path()) + " -x /bin/true");
  ASSERT_EQ(r.status, 0) << r.err;
  const fs::path trace = only_file(out.path(), ".rtrace");
  const ScratchDir work;
  const auto step = [&](const std::string& options, const fs::path& from, const fs::path& to) {
    const auto s = run_command(bin("rtrace") + " process -q " + options + " -i " + quote(from) +
                               " -o " + quote(to));
    EXPECT_EQ(s.status, 0) << s.err;
  };
  step("", trace, work / "first.txt");
  step("--to binary", work / "first.txt", work / "again.rtrace");
  step("", work / "again.rtrace", work / "second.txt");
  const std::string first = read_file(work / "first.txt");
  EXPECT_NE(first.find("\n## tracing module: [0] main ("), std::string::npos) << first;
  EXPECT_NE(first.find("\n## tracing module: [1] memory ("), std::string::npos) << first;
  EXPECT_NE(first.find("\n## heap status information:\n"), std::string::npos) << first;
  EXPECT_EQ(read_file(work / "second.txt"), first);
}

TEST(RecordTracer, BacktraceDepthReachesTheTracer) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir out;
  const auto r = run_command(bin("rtrace") + " record -s -e memory -b 3 -o " + quote(out.path()) +
                             " -x " + quote(RTRACE_MEMORY_PROGRAM));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto text =
      run_command(bin("rtrace") + " process -l -i " + quote(only_file(out.path(), ".rtrace")));
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find(", backtrace depth=3, "), std::string::npos) << text.out;
  // Every leaked block has 3 frames at most.
  std::istringstream lines(text.out);
  std::string line;
  int frames = 0;
  int most = 0;
  while (std::getline(lines, line)) {
    frames = line.starts_with("\t0x") ? frames + 1 : 0;
    most = std::max(most, frames);
  }
  EXPECT_EQ(most, 3);
}

TEST(RecordTracer, TogglingStartsTracingOfARunningProgram) {
  const ScratchDir out;
  const fs::path fifo = out / "in";
  const fs::path pid = out / "pid";
  const fs::path traces = out / "traces";
  fs::create_directory(traces);
  // Started with --wait; once it has printed its pid, a second recorder toggles it, and then the
  // program is told to go on.
  const auto r = run_command(
      "mkfifo " + quote(fifo) + " || exit 9; " + bin("rtrace") + " record -q --wait -o " +
      quote(traces) + " -x " + quote(RTRACE_TOGGLED_PROGRAM) + " < " + quote(fifo) + " > " +
      quote(pid) + " & recorder=$!; exec 3> " + quote(fifo) + "; " +
      test::shell_wait_for_content(pid, "$recorder") + bin("sp-rtrace") + " -t $(cat " +
      quote(pid) + ") && echo go >&3; exec 3>&-; wait $recorder");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("rtrace: tracing of process "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" is now on\n"), std::string::npos) << r.err;
  const fs::path trace = only_file(traces, ".rtrace");
  EXPECT_EQ(trace.filename().string(),
            "recorder_toggled_program." + std::to_string(std::stoul(read_file(pid))) + ".rtrace");
  const auto leaks = run_command(bin("rtrace") + " process -l -i " + quote(trace));
  ASSERT_EQ(leaks.status, 0) << leaks.err;
  const std::vector<std::string> found = calls_and_summaries(leaks.out);
  ASSERT_FALSE(found.empty()) << leaks.out;
  EXPECT_TRUE(found[0].ends_with(". malloc(111)")) << leaks.out;
  EXPECT_EQ(leaks.out.find("(222)"), std::string::npos) << leaks.out;
}

// Before tracing starts the tracer leaves the program as it would be untraced: no
// heap used at main (not even touched) and one thread; the control thread starts with tracing.
// The program then toggles tracing on itself, and its next allocation is traced.
TEST(RecordTracer, ProgramIsUntouchedUntilTracingStarts) {
  const ScratchDir out;
  const auto r = run_command(bin("rtrace") + " record -q --wait -o " + quote(out.path()) + " -x " +
                             quote(RTRACE_UNTOUCHED_PROGRAM));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "at main: heap=0 arena=0 threads=1\ntracing: threads=2\n") << r.err;
  const fs::path trace = only_file(out.path(), ".rtrace");
  const auto leaks = run_command(bin("rtrace") + " process -l -i " + quote(trace));
  ASSERT_EQ(leaks.status, 0) << leaks.err;
  const std::vector<std::string> found = calls_and_summaries(leaks.out);
  ASSERT_FALSE(found.empty()) << leaks.out;
  EXPECT_TRUE(found[0].ends_with(". malloc(4321)")) << leaks.out;
}

// A toggle that cannot work is not sent (SIGUSR1 reset to the default would kill the program) or
// is reported as not taken (the program's own handler took it); the program runs on untouched to
// its end, and the recorder then says that tracing never started.
TEST(RecordTracer, ToggleReportsAProgramThatTookTheSignal) {
  const struct {
    const char* mode;
    const char* error;
  } cases[] = {
      {"own-handler", "tracing did not switch within 3 s of SIGUSR1"},
      {"default-handler", "does not catch SIGUSR1"},
  };
  for (const auto& c : cases) {
    const ScratchDir out;
    const fs::path fifo = out / "in";
    const fs::path pid = out / "pid";
    const auto r = run_command(
        "mkfifo " + quote(fifo) + " || exit 9; " + bin("rtrace") + " record -q --wait -o " +
        quote(out.path()) + " -x " + quote(RTRACE_TOGGLED_PROGRAM) + " " + c.mode + " < " +
        quote(fifo) + " > " + quote(pid) + " & recorder=$!; exec 3> " + quote(fifo) + "; " +
        test::shell_wait_for_content(pid, "$recorder") + bin("rtrace") + " record -t $(cat " +
        quote(pid) + "); echo toggle=$?; echo go >&3; " +
        "exec 3>&-; wait $recorder; echo program=$?");
    EXPECT_NE(r.out.find("toggle=1\n"), std::string::npos) << c.mode << r.out << r.err;
    EXPECT_NE(r.out.find("program=1\n"), std::string::npos) << c.mode << r.out << r.err;
    EXPECT_NE(r.err.find(c.error), std::string::npos) << c.mode << r.err;
    EXPECT_NE(r.err.find(" was not traced: tracing was never toggled on"), std::string::npos)
        << c.mode << r.err;
  }
}

TEST(RecordTracer, RefusesSignalsThatCannotToggle) {
  for (const char* options : {"-S KILL -t 1", "-S SIGSTOP -t 1", "-S 9 -x true"}) {
    const auto r = run_command(bin("rtrace") + " record " + options);
    EXPECT_EQ(r.status, 2) << options << r.err;
    EXPECT_NE(r.err.find("cannot toggle tracing: a process cannot catch it"), std::string::npos)
        << options << r.err;
  }
}

// The simplest form traces memory from the start. bash has its own getenv/setenv, which hid the
// tracer's variables from it: it was never traced, silently.
TEST(RecordTracer, BashScriptIsTraced) {
  const ScratchDir out;
  const auto r = run_command(bin("rtrace") + " record -q -o " + quote(out.path()) +
                             " -- bash -c 'words=; for i in $(seq 200); do words=\"$words $i\"; "
                             "done; echo ${#words}'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "692\n");
  const fs::path trace = only_file(out.path(), ".rtrace");
  const auto text = run_command(bin("rtrace") + " process --strict -i " + quote(trace));
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find(", process=bash, "), std::string::npos) << text.out.substr(0, 300);
  EXPECT_GT(count_call_records(text.out), 1000U);
}

// A library the program needs allocates and leaks in its constructor, before main and before the
// tracer's constructors: those are the program's only leaks, and the trace has them, exactly.
TEST(RecordTracer, LeaksOfLibraryConstructorsBeforeMainAreFound) {
  const ScratchDir out;
  const auto r = run_command(bin("rtrace") + " record -q -o " + quote(out.path()) + " -- " +
                             quote(RTRACE_CTOR_PROGRAM));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto leaks =
      run_command(bin("rtrace") + " process -l -i " + quote(only_file(out.path(), ".rtrace")));
  ASSERT_EQ(leaks.status, 0) << leaks.err;
  EXPECT_EQ(calls_and_summaries(leaks.out),
            (std::vector<std::string>{"1. malloc(3210)", "2. calloc(3210)",
                                      "# Resource - memory (memory allocation in bytes):",
                                      "# 2 block(s) leaked with total size of 6420 bytes"}))
      << leaks.out;
}

// No silent empty result: when no process ever connected, the recorder says why and fails.
TEST(RecordTracer, SaysWhenTheProgramWasNotTraced) {
  const ScratchDir out;
  auto r = run_command(bin("rtrace") + " record -o " + quote(out.path()) +
                       " -- /sbin/ldconfig --version");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "rtrace: /sbin/ldconfig was not traced: the tracer did not start in it (a statically "
            "linked or set-uid program ignores LD_PRELOAD)\n");
  r = run_command(bin("rtrace") + " record --wait -o " + quote(out.path()) + " -- true");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "rtrace: true was not traced: tracing was never toggled on (rtrace record -t PID)\n");
  EXPECT_TRUE(fs::is_empty(out.path()));
}

// Programs nobody here wrote, as users will trace them: they must behave exactly as without the
// tracer (same output, same exit status), and their traces must decode without a warning.
TEST(RecordTracer, ThirdPartyProgramsBehaveAndTheirTracesDecode) {
  const ScratchDir work;
  test::write_file(
      work / "script.py",
      "import json, collections\n"
      "words = collections.Counter('the quick brown fox jumps over the lazy dog'.split())\n"
      "print(json.dumps(sorted(words.items())))\n");
  const std::vector<std::string> commands = {
      "/usr/bin/python3 " + quote(work / "script.py"),
      "git --version",
      "git -C " + quote(test::source_dir()) + " rev-parse --is-inside-work-tree",
      "cmake --version",
  };
  for (const std::string& command : commands) {
    SCOPED_TRACE(command);
    const auto plain = run_command(command);
    ASSERT_EQ(plain.status, 0) << plain.err;

    const ScratchDir out;
    const auto traced = run_command(bin("rtrace") + " record -q -s -e memory -o " +
                                    quote(out.path()) + " -x " + command);
    EXPECT_EQ(traced.status, plain.status) << traced.err;
    EXPECT_EQ(traced.out, plain.out);

    const fs::path trace = only_file(out.path(), ".rtrace");
    const auto text = run_command(bin("rtrace") + " process --strict -i " + quote(trace));
    EXPECT_EQ(text.status, 0) << text.err;
    EXPECT_EQ(text.err, "");
    EXPECT_GT(count_call_records(text.out), 100U) << "too few calls recorded";
    const auto leaks = run_command(bin("rtrace") + " process --strict -lc -i " + quote(trace));
    EXPECT_EQ(leaks.status, 0) << leaks.err;
    EXPECT_NE(leaks.out.find("# Resource - memory (memory allocation in bytes):"),
              std::string::npos);
  }
}

constexpr std::string_view kCompactMagic("\x89RTC\r\n\x1a\n", 8);
constexpr std::string_view kZstdMagic("\x28\xB5\x2F\xFD", 4);

// A compact trace file's bytes, decompressed by the zstd command when the tracer compressed it
// (a whole frame: the command refuses a truncated one).
std::string plain_compact(const fs::path& trace) {
  std::string bytes = read_file(trace);
  if (!bytes.starts_with(kZstdMagic)) {
    return bytes;
  }
  const auto r = run_command("zstd -dcq " + quote(trace));
  EXPECT_EQ(r.status, 0) << r.err;
  return r.out;
}

// The same program recorded in the compact format (the default: zstd-compressed), uncompressed
// (--no-compress) and in the sp-rtrace binary protocol (--format sp-rtrace) gives the same calls:
// functions, kinds, sizes, frame counts and resolved frames (addresses and times aside, which
// differ between runs). And compact -> binary -> text is compact -> text.
TEST(RecordTracer, CompactAndSpRtraceFormatsRecordTheSameCalls) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir compact_out;
  const ScratchDir plain_out;
  const ScratchDir binary_out;
  const std::string record = bin("rtrace") + " record -q -s -e memory -o ";
  const auto a =
      run_command(record + quote(compact_out.path()) + " -x " + quote(RTRACE_MEMORY_PROGRAM));
  ASSERT_EQ(a.status, 0) << a.err;
  const auto b = run_command(record + quote(binary_out.path()) + " --format sp-rtrace -x " +
                             quote(RTRACE_MEMORY_PROGRAM));
  ASSERT_EQ(b.status, 0) << b.err;
  const auto c = run_command(record + quote(plain_out.path()) + " --no-compress -x " +
                             quote(RTRACE_MEMORY_PROGRAM));
  ASSERT_EQ(c.status, 0) << c.err;
  const fs::path compact = only_file(compact_out.path(), ".rtrace");
  const fs::path plain = only_file(plain_out.path(), ".rtrace");
  const fs::path binary = only_file(binary_out.path(), ".rtrace");
  EXPECT_TRUE(read_file(compact).starts_with(kZstdMagic));
  // Version 6.0 inside the frame, and without compression.
  EXPECT_TRUE(plain_compact(compact).starts_with(std::string(kCompactMagic) + "\x06"));
  EXPECT_TRUE(read_file(plain).starts_with(std::string(kCompactMagic) + "\x06"));
  EXPECT_TRUE(read_file(binary).starts_with("\xF0"));
  EXPECT_LT(read_file(plain).size() * 2, read_file(binary).size());
  EXPECT_LT(read_file(compact).size(), read_file(plain).size());

  // Call and frame lines of the resolved text, every hex number and timestamp masked.
  const auto resolved_calls = [](const fs::path& trace) {
    const auto r = run_command(bin("rtrace") + " process --strict -i " + quote(trace) + " | " +
                               bin("rtrace") + " resolve");
    EXPECT_EQ(r.status, 0) << r.err;
    static const std::regex hex("0x[0-9a-f]+");
    static const std::regex time(R"(\[[0-9:.]+\] )");
    static const std::regex call_or_frame(R"(^(\d+\. |\t).*)");
    std::string out;
    std::istringstream lines(r.out);
    std::string line;
    while (std::getline(lines, line)) {
      if (std::regex_match(line, call_or_frame)) {
        out += std::regex_replace(std::regex_replace(line, time, ""), hex, "0x?") + "\n";
      }
    }
    return out;
  };
  const std::string from_compact = resolved_calls(compact);
  EXPECT_GT(count_call_records(from_compact), 20U);
  EXPECT_NE(from_compact.find("main() at "), std::string::npos) << from_compact;
  EXPECT_EQ(from_compact, resolved_calls(binary));
  EXPECT_EQ(from_compact, resolved_calls(plain));

  const ScratchDir work;
  const auto converted = run_command(bin("rtrace") + " process --to binary -i " + quote(compact) +
                                     " -o " + quote(work / "converted.rtrace"));
  ASSERT_EQ(converted.status, 0) << converted.err;
  const auto text_of = [](const fs::path& trace) {
    return run_command(bin("rtrace") + " process --strict -i " + quote(trace)).out;
  };
  EXPECT_EQ(text_of(work / "converted.rtrace"), text_of(compact));
}

// The last record of a compact trace file of version 4 or 5: its tag and its payload's varints
// (docs/format.md). A bare CALL (first byte 0x80 and up: no length) is given as tag 0x09 with
// no fields; the tracer's END always comes after them.
std::pair<int, std::vector<std::uint64_t>> last_compact_record(const std::string& bytes) {
  const auto varint = [&bytes](std::size_t& at) {
    std::uint64_t value = 0;
    for (unsigned shift = 0; at < bytes.size(); shift += 7) {
      const auto b = static_cast<std::uint8_t>(bytes[at++]);
      value |= std::uint64_t{b & 0x7Fu} << shift;
      if ((b & 0x80) == 0) {
        break;
      }
    }
    return value;
  };
  int tag = -1;
  std::size_t payload = 0;
  std::size_t end = 0;
  EXPECT_GE(bytes.size(), 10U);
  EXPECT_EQ(bytes.substr(0, 9), std::string(kCompactMagic) + "\x06");
  for (std::size_t at = 10; at < bytes.size(); at = end) {
    tag = static_cast<std::uint8_t>(bytes[at++]);
    if ((tag & 0x87) == 0x87) {  // a bare thread switch: the slot in bits 3-6, 15: a varint
      if (((tag >> 3) & 0x0F) == 0x0F) {
        varint(at);
      }
      payload = end = at;
      continue;
    }
    if ((tag & 0x80) != 0) {  // flags, then function, resource, size, stack and maybe more
      const std::size_t fields = 4 + ((tag & 0x40) != 0 ? 2 : 0) + ((tag & 0x20) != 0 ? 1 : 0);
      for (std::size_t i = 0; i < fields; ++i) {
        varint(at);
      }
      EXPECT_EQ(tag & 0x08, 0) << "memory calls have no arguments";
      tag = 0x09;
      payload = end = at;
      continue;
    }
    const std::uint64_t length = varint(at);
    payload = at;
    end = at + length;
  }
  std::vector<std::uint64_t> fields;
  while (payload < end && payload < bytes.size()) {
    fields.push_back(varint(payload));
  }
  return {tag, fields};
}

// A compact trace ends with its end-of-trace record: reason 1 (exit) with the peak and final
// RSS, or reason 4 with the signal of a crash; compressed, the zstd frame is whole in both cases
// (a crash ends it in the signal handler).
TEST(RecordTracer, CompactTraceEndsWithWhyItEnded) {
  const ScratchDir exited;
  auto r = run_command(bin("rtrace") + " record -q -s -e memory -o " + quote(exited.path()) +
                       " -x /bin/true");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto before = std::chrono::system_clock::now();
  auto [tag, fields] = last_compact_record(plain_compact(only_file(exited.path(), ".rtrace")));
  EXPECT_EQ(tag, 0x0E);
  ASSERT_EQ(fields.size(), 7U);
  EXPECT_EQ(fields[0], 1U);        // exit
  EXPECT_EQ(fields[1], 0U);        // no signal
  EXPECT_GT(fields[2], 100'000U);  // peak RSS, bytes
  EXPECT_GT(fields[3], 100'000U);  // RSS at the end
  EXPECT_LE(fields[3], fields[2] + 4096);
  // The wall clock (version 5): seconds since the Epoch as a zigzag varint, microseconds.
  const auto seconds = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::seconds>(before.time_since_epoch()).count());
  EXPECT_GE(fields[5] / 2, seconds - 60);
  EXPECT_LE(fields[5] / 2, seconds + 60);
  EXPECT_EQ(fields[5] % 2, 0U);
  EXPECT_LT(fields[6], 1'000'000U);
  // ... which `rtrace process` prints.
  const std::string text =
      run_command(bin("rtrace") + " process -i " + quote(only_file(exited.path(), ".rtrace"))).out;
  EXPECT_NE(
      text.find(fmt::format(", reason=exit, time={}.{:06}, peak rss=", fields[5] / 2, fields[6])),
      std::string::npos)
      << text;

  const ScratchDir crashed;
  r = run_command(bin("rtrace") + " record -q -s -e memory -o " + quote(crashed.path()) +
                  " -x /bin/sh -c 'kill -SEGV $$'");
  EXPECT_EQ(r.status, 128 + 11) << r.err;
  std::tie(tag, fields) = last_compact_record(plain_compact(only_file(crashed.path(), ".rtrace")));
  EXPECT_EQ(tag, 0x0E);
  ASSERT_EQ(fields.size(), 7U);
  EXPECT_EQ(fields[0], 4U);   // crash
  EXPECT_EQ(fields[1], 11U);  // SIGSEGV
}

}  // namespace
}  // namespace rtrace
