// `rtrace export pprof` read by pprof itself (`go tool pprof`, Debian's golang-go): every sample
// type's total is the figure `rtrace report --json` gives for the same trace, the functions are
// the program's, pprof names the addresses of an unresolved trace from the binary (through the
// profile's mappings and build-ids), and every input format rtrace reads gives a profile pprof
// reads.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "support/test_paths.h"

namespace rtrace {
namespace {

using test::quoted;

std::string rtrace() {
  return test::built_tool("rtrace");
}
std::string leaky() {
  return quoted(test::build_dir() / "examples" / "leaky");
}

// `go tool pprof ARGUMENTS`, its warnings (missing binaries of fixtures) left out.
test::CommandResult pprof(const std::string& arguments) {
  return test::run_command(std::string("'") + RTRACE_GO_PROGRAM + "' tool pprof " + arguments);
}

// The total pprof -top shows for one sample type, in the type's own unit.
std::uint64_t pprof_total(const std::filesystem::path& profile, const std::string& sample_type) {
  const test::CommandResult top =
      pprof("-top -unit=B -sample_index=" + sample_type + " " + quoted(profile));
  EXPECT_EQ(top.status, 0) << top.err;
  std::smatch match;
  if (!std::regex_search(top.out, match, std::regex(R"(of (\d+)B? total)"))) {
    ADD_FAILURE() << "no total in pprof's output:\n" << top.out << top.err;
    return 0;
  }
  return std::stoull(match[1].str());
}

// The report's figures of `type` (no suppressions: the profile holds every block).
nlohmann::json report_type(const std::string& trace, const std::string& options,
                           const std::string& type) {
  const test::CommandResult report = test::run_command(
      rtrace() + " report --json --no-default-suppressions " + options + " " + trace);
  EXPECT_EQ(report.status, 0) << report.err;
  const nlohmann::json parsed = nlohmann::json::parse(report.out);
  for (const nlohmann::json& entry : parsed["types"]) {
    if (entry["type"] == type) {
      return entry;
    }
  }
  ADD_FAILURE() << "the report has no type " << type;
  return {};
}

// Records examples/leaky (the demo) into `dir`; returns the trace's path, quoted.
std::string record_demo(const test::ScratchDir& dir) {
  const test::CommandResult recorded =
      test::run_command(rtrace() + " record -q -s -e memory -o " + quoted(dir.path()) + " -x " +
                        leaky() + " > /dev/null");
  EXPECT_EQ(recorded.status, 0) << recorded.err;
  return quoted(std::filesystem::directory_iterator(dir.path())->path());
}

void expect_memory_totals(const std::filesystem::path& profile, const nlohmann::json& type) {
  EXPECT_EQ(pprof_total(profile, "alloc_objects"), type["allocations"].get<std::uint64_t>());
  EXPECT_EQ(pprof_total(profile, "alloc_space"), type["bytes_allocated"].get<std::uint64_t>());
  EXPECT_EQ(pprof_total(profile, "inuse_objects"), type["leaked_blocks"].get<std::uint64_t>());
  EXPECT_EQ(pprof_total(profile, "inuse_space"), type["leaked_bytes"].get<std::uint64_t>());
}

TEST(PprofExport, DemoTotalsAreTheReportsAndItsFunctionsLead) {
  const test::ScratchDir dir;
  const std::string trace = record_demo(dir);
  const test::CommandResult exported =
      test::run_command(rtrace() + " export pprof " + trace + " -o " + quoted(dir / "p.pb.gz"));
  ASSERT_EQ(exported.status, 0) << exported.err;
  const nlohmann::json memory = report_type(trace, "", "memory");
  expect_memory_totals(dir / "p.pb.gz", memory);
  // leaky.c: 82 allocations of 26152 bytes, 9500 bytes in 7 blocks alive at exit.
  EXPECT_EQ(memory["bytes_allocated"], 26152);
  EXPECT_EQ(memory["leaked_bytes"], 9500);

  // The default sample type is inuse_space; grow_log allocates most, then document_open.
  const test::CommandResult top = pprof("-top " + quoted(dir / "p.pb.gz"));
  ASSERT_EQ(top.status, 0) << top.err;
  EXPECT_NE(top.out.find("Type: inuse_space\n"), std::string::npos) << top.out;
  const test::CommandResult allocated =
      pprof("-top -unit=B -sample_index=alloc_space " + quoted(dir / "p.pb.gz"));
  EXPECT_TRUE(std::regex_search(
      allocated.out, std::regex(R"(flat%[^\n]*\n\s+13440B [^\n]* grow_log\n\s+4380B [^\n]* )"
                                R"(document_open\n)")))
      << allocated.out;
  // A whole stack, innermost first, with the source lines (inlined calls as pprof's own lines).
  const test::CommandResult traces =
      pprof("-traces -sample_index=inuse_space " + quoted(dir / "p.pb.gz"));
  ASSERT_EQ(traces.status, 0) << traces.err;
  EXPECT_TRUE(std::regex_search(
      traces.out, std::regex(R"(\n\s+1\.25kB\s+grow_log\n\s+main\n\s+__libc_start_call_main\n)")))
      << traces.out;
  EXPECT_NE(traces.out.find("(inline)"), std::string::npos) << traces.out;
  const test::CommandResult lines =
      pprof("-top -lines -sample_index=alloc_space " + quoted(dir / "p.pb.gz"));
  EXPECT_NE(lines.out.find("grow_log leaky.c:34"), std::string::npos) << lines.out;
}

// Without names in the trace, pprof names the addresses itself from the binary: the profile's
// mapping gives the file, its build-id and the offset that maps the executable segment.
TEST(PprofExport, UnresolvedTraceIsSymbolizedByPprofFromTheBinary) {
  const test::ScratchDir dir;
  const std::string trace = record_demo(dir);
  const test::CommandResult exported = test::run_command(rtrace() + " export pprof --no-resolve " +
                                                         trace + " -o " + quoted(dir / "u.pb.gz"));
  ASSERT_EQ(exported.status, 0) << exported.err;
  const test::CommandResult notes = test::run_command("readelf -n " + leaky());
  std::smatch build_id;
  ASSERT_TRUE(std::regex_search(notes.out, build_id, std::regex(R"(Build ID: ([0-9a-f]+))")))
      << notes.out;
  const test::CommandResult raw = pprof("-raw " + quoted(dir / "u.pb.gz"));
  ASSERT_EQ(raw.status, 0) << raw.err;
  EXPECT_TRUE(std::regex_search(
      raw.out, std::regex("\\n1: 0x[0-9a-f]+/0x[0-9a-f]+/0x1000 \\S+/examples/leaky " +
                          build_id[1].str() + " ")))
      << raw.out;
  const test::CommandResult top =
      pprof("-top -unit=B -sample_index=alloc_space " + quoted(dir / "u.pb.gz"));
  ASSERT_EQ(top.status, 0) << top.err;
  EXPECT_TRUE(std::regex_search(top.out, std::regex(R"(\n\s+13440B [^\n]* grow_log\n)")))
      << top.out;
  EXPECT_TRUE(std::regex_search(top.out, std::regex(R"(\n\s+4380B [^\n]* document_open\n)")))
      << top.out;
  expect_memory_totals(dir / "u.pb.gz", report_type(trace, "--no-resolve", "memory"));
}

// Every format rtrace reads: pprof reads the profile, and its totals are the report's.
TEST(PprofExport, EveryInputFormatGivesTheReportsTotals) {
  RTRACE_NEEDS_FIXTURES();
  struct Case {
    std::string fixture;
    std::string type;
    std::map<std::string, std::string> totals;  // sample type -> the report's field
  };
  const std::map<std::string, std::string> memory{{"alloc_objects", "allocations"},
                                                  {"alloc_space", "bytes_allocated"},
                                                  {"inuse_objects", "leaked_blocks"},
                                                  {"inuse_space", "leaked_bytes"}};
  const std::vector<Case> cases{
      {"sp-rtrace/memory/memory.raw", "memory", memory},
      {"sp-rtrace/memory/memory.txt", "memory", memory},
      {"sp-rtrace/fd/fd.raw",
       "fd",
       {{"alloc_descriptors", "allocations"}, {"inuse_descriptors", "leaked_blocks"}}},
      {"sp-rtrace/shmsysv/shmsysv.raw",
       "segment",
       {{"alloc_segments", "allocations"},
        {"alloc_space", "bytes_allocated"},
        {"inuse_segments", "leaked_blocks"},
        {"inuse_space", "leaked_bytes"}}},
      {"mpatrol/basic/basic.trace", "memory", memory},
      {"apitrace/glx_calls/glx_calls.trace",
       "texture",
       {{"alloc_objects", "allocations"}, {"inuse_objects", "leaked_blocks"}}},
      {"stacktrack/sample.raw",
       "checkpoint",
       {{"alloc_hits", "allocations"}, {"inuse_hits", "leaked_blocks"}}},
  };
  const test::ScratchDir dir;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.fixture);
    const std::string trace = quoted(test::fixture(c.fixture));
    const test::CommandResult exported = test::run_command(
        rtrace() + " export pprof --no-resolve " + trace + " -o " + quoted(dir / "f.pb.gz"));
    ASSERT_EQ(exported.status, 0) << exported.err;
    const nlohmann::json type = report_type(trace, "--no-resolve", c.type);
    for (const auto& [sample_type, field] : c.totals) {
      EXPECT_EQ(pprof_total(dir / "f.pb.gz", sample_type), type[field].get<std::uint64_t>())
          << sample_type;
    }
  }
}

// A stretch of the trace: what was allocated in it, and what is alive at its end wherever it
// was allocated. memory.raw: calls 1 to 25 allocate 15 blocks of 2156 bytes, and leave 5 blocks
// of 804 bytes alive (calls 19, 20, 21, 24, 25); calls 20 to 25 allocate 5 blocks of 754 bytes,
// and the block of call 19, allocated before them, is among those alive at their end.
TEST(PprofExport, TimeRangeCountsAllocationsInItAndWhatIsAliveAtItsEnd) {
  RTRACE_NEEDS_FIXTURES();
  const test::ScratchDir dir;
  const std::string trace = quoted(test::fixture("sp-rtrace/memory/memory.raw"));
  const auto totals = [&](const std::string& range) {
    const test::CommandResult exported =
        test::run_command(rtrace() + " export pprof --no-resolve " + range + " " + trace + " -o " +
                          quoted(dir / "r.pb.gz"));
    EXPECT_EQ(exported.status, 0) << exported.err;
    return std::vector<std::uint64_t>{
        pprof_total(dir / "r.pb.gz", "alloc_objects"), pprof_total(dir / "r.pb.gz", "alloc_space"),
        pprof_total(dir / "r.pb.gz", "inuse_objects"), pprof_total(dir / "r.pb.gz", "inuse_space")};
  };
  EXPECT_EQ(totals("--to @25"), (std::vector<std::uint64_t>{15, 2156, 5, 804}));
  EXPECT_EQ(totals("--from @20 --to @25"), (std::vector<std::uint64_t>{5, 754, 5, 804}));
  // The whole trace in seconds since the first call is the whole trace.
  EXPECT_EQ(totals("--from 0 --to 1000s"), totals(""));
}

TEST(PprofExport, BadRangesAreUsageErrors) {
  RTRACE_NEEDS_FIXTURES();
  const std::string trace = quoted(test::fixture("sp-rtrace/memory/memory.raw"));
  const auto run = [&](const std::string& arguments) {
    return test::run_command(rtrace() + " export " + arguments + " " + trace + " -o /dev/null");
  };
  const test::CommandResult garbage = run("pprof --from 2x");
  EXPECT_EQ(garbage.status, 2);
  EXPECT_NE(garbage.err.find("'2x': not a time since the start nor a call index"),
            std::string::npos)
      << garbage.err;
  const test::CommandResult backwards = run("pprof --from @20 --to @10");
  EXPECT_EQ(backwards.status, 2);
  EXPECT_NE(backwards.err.find("the range ends (call 10) before it starts (call 20)"),
            std::string::npos)
      << backwards.err;
  const test::CommandResult folded = run("folded --from 1s");
  EXPECT_EQ(folded.status, 2);
  EXPECT_EQ(folded.err,
            "rtrace: --from/--to: the folded export shows the whole trace (pprof takes a range)\n");
}

// A trace cut short: the profile of what came before the cut, with what every export says of
// the cut (here the decompressed recording cut two thirds in: a warning naming the offset, of a
// truncated record or of a trace without its end, as the cut falls).
TEST(PprofExport, TruncatedTraceSaysWhatOtherExportsSay) {
  const test::ScratchDir dir;
  const std::string recorded = record_demo(dir);
  const test::CommandResult plain =
      test::run_command("zstd -dcq " + recorded + " > " + quoted(dir / "plain"));
  ASSERT_EQ(plain.status, 0) << plain.err;
  const std::string bytes = test::read_file(dir / "plain");
  test::write_file(dir / "cut.rtrace", bytes.substr(0, bytes.size() * 2 / 3));
  const std::string cut = quoted(dir / "cut.rtrace");
  const test::CommandResult folded =
      test::run_command(rtrace() + " export folded -w allocated " + cut);
  const test::CommandResult exported =
      test::run_command(rtrace() + " export pprof " + cut + " -o " + quoted(dir / "cut.pb.gz"));
  EXPECT_EQ(exported.status, folded.status);
  EXPECT_TRUE(std::regex_search(
      exported.err, std::regex("^rtrace: " + (dir / "cut.rtrace").string() + R"(:\d+: warning: )")))
      << exported.err;
  EXPECT_EQ(exported.err, folded.err);
  std::uint64_t folded_bytes = 0;
  const std::regex value(R"( (\d+)\n)");
  for (auto m = std::sregex_iterator(folded.out.begin(), folded.out.end(), value);
       m != std::sregex_iterator(); ++m) {
    folded_bytes += std::stoull((*m)[1].str());
  }
  EXPECT_GT(folded_bytes, 0U);
  EXPECT_EQ(pprof_total(dir / "cut.pb.gz", "alloc_space"), folded_bytes);
}

// speedscope (tests/browser/speedscope_view.mjs, npm, in headless Chromium) opens the export of
// the demo's trace: it reads it as a pprof profile, without an error, and its sandwich view lists
// the functions of the allocations' stacks with the profile's default sample type, in-use bytes.
TEST(PprofExport, SpeedscopeShowsTheStacks) {
  const test::ScratchDir dir;
  const std::string trace = record_demo(dir);
  const test::CommandResult exported =
      test::run_command(rtrace() + " export pprof " + trace + " -o " + quoted(dir / "p.pb.gz"));
  ASSERT_EQ(exported.status, 0) << exported.err;
  const test::CommandResult viewed =
      test::run_command(std::string(RTRACE_NODE_PROGRAM) + " " +
                        quoted(test::source_dir() / "tests" / "browser" / "speedscope_view.mjs") +
                        " " + quoted(dir / "p.pb.gz"));
  ASSERT_EQ(viewed.status, 0) << viewed.err;
  const nlohmann::json shown = nlohmann::json::parse(viewed.out);
  EXPECT_EQ(shown.at("errors"), nlohmann::json::array()) << viewed.out;
  const std::vector<std::string> console = shown.at("console");
  EXPECT_NE(std::ranges::find(console, "Importing as protobuf encoded pprof file"), console.end())
      << viewed.out;
  const std::string text = shown.at("text").get<std::string>() + "\n";
  EXPECT_NE(text.find("Total\tSelf\tSymbol Name\n"), std::string::npos) << text;
  // leaky.c's blocks alive at exit: allocated by document_open and grow_log, called from main.
  for (const char* function : {"document_open", "grow_log", "main"}) {
    EXPECT_NE(text.find(std::string("\t") + function + "\n"), std::string::npos) << function << "\n"
                                                                                 << text;
  }
}

}  // namespace
}  // namespace rtrace
