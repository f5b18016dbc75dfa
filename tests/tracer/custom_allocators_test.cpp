// The custom allocator API (include/rtrace/rtrace_api.h) end to end: a program with a pool
// allocator of its own, instrumented with rtrace's calls, valgrind's mempool requests and
// heaptrack's report calls, recorded by the real `rtrace record -e memory:pool`; its trace
// decoded and compared with what the program says it did, then its leaks listed by `rtrace
// process -l` and reported by `rtrace report`, with the pool's own allocation sites.
#include <gtest/gtest.h>

#include <filesystem>
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

std::string quote(const fs::path& path) {
  return "'" + path.string() + "'";
}

std::string rtrace_command() {
  return quote(build_dir() / "bin" / "rtrace");
}

const std::string kProgram = std::string(RTRACE_TRACER_PROGRAMS) + "/pool_allocator";

// The program recorded with the memory and pool modules: what it printed, and its one trace.
struct Recorded {
  ScratchDir out;
  CommandResult run;
  fs::path trace;
};

void record(Recorded& recorded, const std::string& modules) {
  recorded.run = run_command(rtrace_command() + " record -q -e " + modules + " -o " +
                             quote(recorded.out.path()) + " -x " + quote(kProgram));
  for (const auto& entry : fs::directory_iterator(recorded.out.path())) {
    recorded.trace = entry.path();
  }
}

// The records the program announces ("name size 0xblock", "name 0xblock"), as describe() puts
// them.
std::vector<std::string> announced(const std::string& output) {
  static const std::regex allocation(R"(^(\w+) (\d+) (0x[0-9a-f]+)$)");
  static const std::regex release(R"(^(\w+) (0x[0-9a-f]+)$)");
  std::vector<std::string> records;
  std::istringstream lines(output);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_match(line, m, allocation)) {
      records.push_back(m[1].str() + "(" + m[2].str() + ") = " + m[3].str());
    } else if (std::regex_match(line, m, release)) {
      records.push_back(m[1].str() + "(" + m[2].str() + ")");
    }
  }
  return records;
}

// The leaks the program announces ("leaked name size 0xblock"), as `process -l` lists them
// (without their index and time), in the order it allocated them.
std::vector<std::string> announced_leaks(const std::string& output) {
  static const std::regex leak(R"(^leaked (\w+) (\d+) (0x[0-9a-f]+)$)");
  std::vector<std::string> leaks;
  std::istringstream lines(output);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_match(line, m, leak)) {
      leaks.push_back(m[1].str() + "(" + m[2].str() + ") = " + m[3].str());
    }
  }
  return leaks;
}

// The calls `process -l` lists, without their index and time.
std::vector<std::string> listed_leaks(const std::string& listing) {
  static const std::regex call(R"(^\d+\. (?:\[[0-9:.]+\] )?(\w+\(\d+\) = 0x[0-9a-f]+)$)");
  std::vector<std::string> calls;
  std::istringstream lines(listing);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_match(line, m, call)) {
      calls.push_back(m[1].str());
    }
  }
  return calls;
}

TEST(CustomAllocators, ThePoolsCallsAreRecordedUnderThePoolsNames) {
  Recorded recorded;
  record(recorded, "memory:pool");
  ASSERT_EQ(recorded.run.status, 0) << recorded.run.err;
  const TraceDecoder trace = decode_file(recorded.trace.string());
  ASSERT_TRUE(trace.complete()) << trace.error();
  EXPECT_EQ(trace.resources,
            (std::vector<std::string>{"1 0 memory (memory allocation in bytes)",
                                      "2 0 pool (custom allocator block in bytes)"}));
  const std::vector<std::string> expected = announced(recorded.run.out);
  ASSERT_EQ(expected.size(), 20U) << recorded.run.out;
  EXPECT_EQ(describe_objects(trace, 2), expected);
  // Each allocation's backtrace starts in the program: the pool's function that called the API.
  for (const DecodedCall& call : trace.calls) {
    if (call.resource_type == 2 && call.kind == 2) {
      EXPECT_FALSE(call.frames.empty()) << describe(call);
    }
  }
}

TEST(CustomAllocators, LeaksListThePoolsBlocksNeverGivenBack) {
  Recorded recorded;
  record(recorded, "memory:pool");
  ASSERT_EQ(recorded.run.status, 0) << recorded.run.err;
  const CommandResult pool_leaks =
      run_command(rtrace_command() + " process -l -R 2 -i " + quote(recorded.trace));
  ASSERT_EQ(pool_leaks.status, 0) << pool_leaks.err;
  const std::vector<std::string> expected = announced_leaks(recorded.run.out);
  ASSERT_EQ(expected.size(), 4U);
  EXPECT_EQ(listed_leaks(pool_leaks.out), expected) << pool_leaks.out;
  EXPECT_NE(pool_leaks.out.find("# Resource - pool (custom allocator block in bytes):\n"
                                "# 4 block(s) leaked with total size of 112 bytes\n"),
            std::string::npos)
      << pool_leaks.out;
}

TEST(CustomAllocators, TheReportShowsThePoolsBlocksWithTheirOwnSites) {
  Recorded recorded;
  record(recorded, "memory:pool");
  ASSERT_EQ(recorded.run.status, 0) << recorded.run.err;
  const CommandResult report = run_command(rtrace_command() + " report " + quote(recorded.trace));
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_NE(report.out.find("\nLEAKS\n  memory: 4 block(s) leaked, 8240 bytes\n"
                            "  pool: 4 block(s) leaked, 112 bytes\n"),
            std::string::npos)
      << report.out;
  // The string pool's three blocks come from its allocation function, the malloc-like block
  // from the chunk allocator's: the first frame of each is the function that called the API.
  const std::regex pool_site(
      R"(\n    96 bytes in 3 block\(s\) of pool from:\n      0x[0-9a-f]+ pool_alloc\(\) at )"
      R"(pool_allocator\.c:43\n      0x[0-9a-f]+ main\(\) at pool_allocator\.c:88\n)");
  EXPECT_TRUE(std::regex_search(report.out, pool_site)) << report.out;
  const std::regex chunk_site(
      R"(\n    16 bytes in 1 block\(s\) of pool from:\n      0x[0-9a-f]+ chunk_alloc\(\) at )"
      R"(pool_allocator\.c:69\n)");
  EXPECT_TRUE(std::regex_search(report.out, chunk_site)) << report.out;
}

TEST(CustomAllocators, WithoutThePoolModuleTheProgramRunsAndNothingOfItsPoolsIsRecorded) {
  Recorded recorded;
  record(recorded, "memory");
  ASSERT_EQ(recorded.run.status, 0) << recorded.run.err;
  EXPECT_EQ(announced(recorded.run.out).size(), 20U);
  const TraceDecoder trace = decode_file(recorded.trace.string());
  ASSERT_TRUE(trace.complete()) << trace.error();
  EXPECT_EQ(trace.resources, std::vector<std::string>{"1 0 memory (memory allocation in bytes)"});
}

TEST(CustomAllocators, UntracedTheApiCostsNothingButATest) {
  const CommandResult run = run_command(quote(kProgram));
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(announced(run.out).size(), 20U);
  EXPECT_EQ(announced_leaks(run.out).size(), 4U);
}

}  // namespace
}  // namespace rtrace::test
