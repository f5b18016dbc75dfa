// rtrace export chrome: times to the nanosecond and every call's stack from a trace that has
// them, the whole of a 2 M-call trace (or what --max-events cut, said), and the file opened by
// a real viewer: speedscope, which reads the format's stackFrames and samples and draws the
// allocations' stacks (its sandwich view lists every function of them).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "exports/export_registry.h"
#include "io/output_stream.h"
#include "support/sweep.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

using nlohmann::json;

std::string rtrace() {
  return test::quoted(test::build_dir() / "bin" / "rtrace");
}

test::CommandResult export_chrome(const std::filesystem::path& trace,
                                  const std::filesystem::path& output,
                                  const std::string& options = "") {
  return test::run_command(rtrace() + " export chrome -q --no-resolve " + options + " -i " +
                           test::quoted(trace) + " -o " + test::quoted(output));
}

// A trace in rtrace's compact format (nanosecond clock): three calls 998 and 501 ns apart, the
// two allocations from stacks that share their caller.
void write_nanosecond_trace(const std::filesystem::path& path) {
  OutputStream out(path.string(), {});
  const std::unique_ptr<TraceSink> writer = find_export("compact")->open(out, ExportOptions{});
  ProcessInfo process;
  process.pid = 77;
  process.name = "nanos";
  writer->process(process);
  writer->resource_type({.id = 1, .type = "memory", .description = "memory"});
  const std::vector<Frame> first{{.address = 0x1100}, {.address = 0x2000}};
  const std::vector<Frame> second{{.address = 0x1200}, {.address = 0x2000}};
  const auto call = [&](std::uint64_t index, CallKind kind, std::uint64_t time_ns, std::uint64_t id,
                        std::uint64_t size, const std::vector<Frame>& frames,
                        std::string_view function) {
    CallRecord record;
    record.call = {.index = index,
                   .resource_id = id,
                   .size = size,
                   .timestamp_ns = time_ns,
                   .resource_type = 1,
                   .kind = kind};
    record.function = function;
    record.frames = frames;
    writer->call(record);
  };
  call(1, CallKind::Alloc, 5'000'000'001, 0xa0, 10, first, "malloc");
  call(2, CallKind::Alloc, 5'000'000'999, 0xb0, 20, second, "malloc");
  call(3, CallKind::Free, 5'000'001'500, 0xa0, 0, first, "free");
  writer->finish();
  out.commit();
}

TEST(ChromeExport, NanosecondTimesAndEveryCallsStack) {
  const test::ScratchDir dir;
  write_nanosecond_trace(dir / "nanos.rtrace");
  const test::CommandResult r = export_chrome(dir / "nanos.rtrace", dir / "t.json");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string text = test::read_file(dir / "t.json");
  // "ts" in microseconds with the nanoseconds as three decimals, as written.
  EXPECT_NE(text.find(R"("ts":0.998,)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("ts":1.499,)"), std::string::npos) << text;
  const json trace = json::parse(text);
  std::vector<std::string> stacks;
  const json& frames = trace.at("stackFrames");
  for (const json& event : trace.at("traceEvents")) {
    if (event.at("ph") != "i") {
      continue;
    }
    // Each call's stack, innermost first, read through the table's parents.
    std::string stack = fmt::format("{} {:.3f}:", event.at("name").get<std::string>(),
                                    event.at("ts").get<double>());
    for (std::string id = event.at("sf").dump(); !id.empty();) {
      const json& frame = frames.at(id);
      stack += " " + frame.at("name").get<std::string>();
      id = frame.contains("parent") ? frame.at("parent").get<std::string>() : "";
    }
    stacks.push_back(stack);
  }
  EXPECT_EQ(stacks,
            (std::vector<std::string>{"malloc 0.000: 0x1100 0x2000", "malloc 0.998: 0x1200 0x2000",
                                      "free 1.499: 0x1100 0x2000"}));
  // The two allocations as samples of their stacks, weighing their sizes.
  ASSERT_EQ(trace.at("samples").size(), 2U);
  EXPECT_EQ(trace.at("samples")[1].at("weight"), 20);
  EXPECT_EQ(trace.at("samples")[1].at("sf"), trace.at("traceEvents")[2].at("sf"));
  // Live bytes: 10, 30, 20.
  std::vector<int> live;
  for (const json& event : trace.at("traceEvents")) {
    if (event.at("ph") == "C") {
      live.push_back(event.at("args").at("live"));
    }
  }
  EXPECT_EQ(live, (std::vector<int>{10, 30, 20}));
  EXPECT_EQ(trace.at("otherData").at("calls_left_out"), 0);
}

// How many lines of `path` contain `text` (the export writes one event or sample a line).
std::uint64_t lines_with(const std::filesystem::path& path, const std::string& text) {
  std::ifstream in(path);
  std::uint64_t count = 0;
  for (std::string line; std::getline(in, line);) {
    count += line.find(text) != std::string::npos ? 1 : 0;
  }
  return count;
}

// The JSON document's last line: its otherData.
json other_data(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string last;
  for (std::string line; std::getline(in, line);) {
    last = line;
  }
  return json::parse("{" + last).at("otherData");
}

// A generated trace of many distinct stacks: every call is an event, every allocation a sample,
// as many as `rtrace report` counts; --max-events cuts and says so. The full run (`make
// check-slow`) exports 2 M calls from 100 k stacks (a 484 MB file, minutes under ASan); the
// ordinary run a tenth of that.
TEST(ChromeExport, GeneratedTraceHoldsEveryEvent) {
  const test::ScratchDir dir;
  const std::string size = test::full_sweep() ? "-n 2000000 -k 100000" : "-n 200000 -k 10000";
  const test::CommandResult generated = test::run_command(
      test::built_tool("rtrace-gen-trace") + " " + size + " -d 10 --every-stack -o " +
      test::quoted(dir / "big.trace"));
  ASSERT_EQ(generated.status, 0) << generated.err;
  const test::CommandResult report = test::run_command(
      rtrace() + " report -q --no-resolve --json " + test::quoted(dir / "big.trace"));
  ASSERT_EQ(report.status, 0) << report.err;
  const json figures = json::parse(report.out);
  const std::uint64_t calls = figures.at("calls");
  const std::uint64_t allocations = figures.at("types")[0].at("allocations");
  EXPECT_GE(calls, test::full_sweep() ? 2'000'000U : 200'000U);

  const test::CommandResult whole = export_chrome(dir / "big.trace", dir / "big.json");
  ASSERT_EQ(whole.status, 0) << whole.err;
  EXPECT_EQ(whole.err, "");
  EXPECT_EQ(lines_with(dir / "big.json", R"("ph":"i")"), calls);
  EXPECT_EQ(lines_with(dir / "big.json", R"("weight":)"), allocations);
  EXPECT_EQ(other_data(dir / "big.json"),
            json::parse(fmt::format(R"({{"producer":"rtrace export chrome","call_events":{},)"
                                    R"("calls_left_out":0,"max_events":0}})",
                                    calls)));
  std::filesystem::remove(dir / "big.json");

  const test::CommandResult cut =
      export_chrome(dir / "big.trace", dir / "cut.json", "--max-events 1000");
  ASSERT_EQ(cut.status, 0) << cut.err;
  EXPECT_EQ(cut.err, fmt::format("rtrace: chrome export: --max-events 1000 reached, {} later "
                                 "calls left out\n",
                                 calls - 1000));
  EXPECT_EQ(lines_with(dir / "cut.json", R"("ph":"i")"), 1000U);
  EXPECT_EQ(other_data(dir / "cut.json").at("calls_left_out"), calls - 1000);
  // The cut file is a whole document.
  EXPECT_EQ(json::parse(test::read_file(dir / "cut.json")).at("traceEvents").size(),
            1000U + 1U + lines_with(dir / "cut.json", R"("ph":"C")"));
}

// speedscope (tests/browser/speedscope_view.mjs) opens the export of a recorded program whose
// stacks are known: it reads it as a Trace Event Format profile, without an error, and its
// sandwich view lists the functions of the allocations' stacks. speedscope weighs a sample by the
// time to the next one on its thread: the program pauses 1.5 ms after each allocation, so that
// each has a weight on the recorder's clock of milliseconds.
TEST(ChromeExport, SpeedscopeShowsTheAllocationStacks) {
  const test::ScratchDir dir;
  const test::CommandResult recorded =
      test::run_command(rtrace() + " record -q -s -e memory -o " + test::quoted(dir.path()) +
                        " -x " + RTRACE_MASSIF_STEPS + " 1500");
  ASSERT_EQ(recorded.status, 0) << recorded.err;
  const std::filesystem::path trace = std::filesystem::directory_iterator(dir.path())->path();
  const test::CommandResult exported =
      test::run_command(rtrace() + " export chrome -q -i " + test::quoted(trace) + " -o " +
                        test::quoted(dir / "t.json"));
  ASSERT_EQ(exported.status, 0) << exported.err;
  const test::CommandResult viewed = test::run_command(
      std::string(RTRACE_NODE_PROGRAM) + " " +
      test::quoted(test::source_dir() / "tests" / "browser" / "speedscope_view.mjs") + " " +
      test::quoted(dir / "t.json"));
  ASSERT_EQ(viewed.status, 0) << viewed.err;
  const json shown = json::parse(viewed.out);
  EXPECT_EQ(shown.at("errors"), json::array()) << viewed.out;
  const std::vector<std::string> console = shown.at("console");
  EXPECT_NE(std::ranges::find(console, "Importing as Trace Event Format profile"), console.end())
      << viewed.out;
  const std::string text = shown.at("text").get<std::string>() + "\n";
  EXPECT_NE(text.find("Total\tSelf\tSymbol Name\n"), std::string::npos) << text;
  // tiny_buffer's one allocation is the last sample: no time follows it, it weighs nothing and
  // speedscope leaves it out.
  for (const char* function : {"big_buffer", "small_buffer", "main", "__libc_start_call_main",
                               "__libc_start_main", "_start"}) {
    EXPECT_NE(text.find(fmt::format("\t{}\n", function)), std::string::npos) << function << "\n"
                                                                             << text;
  }
}

}  // namespace
}  // namespace rtrace
