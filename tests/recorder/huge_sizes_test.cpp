// Allocations of 4 GiB and more, end to end with the real tracer: huge_blocks_program.c calls
// malloc(5000000000), calloc(3, 2000000000) and malloc(4294967295) (the largest size a 32-bit
// field holds). Every format rtrace records keeps their sizes whole (the sp-rtrace protocol's
// CALL packet has 32 bits for it: an RSIZ packet carries the rest), the report's totals are
// theirs, and every conversion keeps them; the `sp-rtrace` command, which writes the original's
// protocol only, says that it caps them.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "support/test_paths.h"

namespace rtrace {
namespace {

namespace fs = std::filesystem;
using test::built_tool;
using test::quoted;
using test::run_command;
using test::ScratchDir;

const std::vector<std::string> kProgramsAllocations = {"malloc(5000000000)", "calloc(6000000000)",
                                                       "malloc(4294967295)"};

// Records the program with `recorder` (a command line up to the program) into `out`; returns
// the one trace file it wrote.
fs::path recorded(const std::string& recorder, const fs::path& out, std::string* err = nullptr) {
  fs::create_directories(out);
  const auto r = run_command(recorder + " -o " + quoted(out) + " -x " RTRACE_HUGE_BLOCKS_PROGRAM);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("allocation refused"), std::string::npos)
      << "the C library refused the program's blocks (not enough address space): " << r.err;
  if (err != nullptr) {
    *err = r.err;
  }
  const auto files = test::files_in(out);
  EXPECT_EQ(files.size(), 1U) << r.err;
  return files.empty() ? fs::path{} : files.front();
}

// The allocations `rtrace process [options]` reads from `trace`, as "name(size)".
std::vector<std::string> allocations_in(const fs::path& trace, const std::string& options = "") {
  const auto r = run_command(built_tool("rtrace") + " process " + options + quoted(trace));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  static const std::regex allocation(R"((malloc|calloc)\(([0-9]+)\) = 0x)");
  std::vector<std::string> found;
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), allocation);
       it != std::sregex_iterator(); ++it) {
    found.push_back((*it)[1].str() + "(" + (*it)[2].str() + ")");
  }
  return found;
}

TEST(HugeSizes, EveryRecordedFormatKeepsTheWholeSize) {
  for (const std::string format : {"compact", "sp-rtrace"}) {
    SCOPED_TRACE(format);
    const ScratchDir dir;
    const fs::path trace =
        recorded(built_tool("rtrace") + " record -q --format " + format, dir / "out");
    EXPECT_EQ(allocations_in(trace), kProgramsAllocations);
    // The leaks, through the sp-rtrace format's own fast scan for -l.
    EXPECT_EQ(allocations_in(trace, "-l "),
              (std::vector<std::string>{"calloc(6000000000)", "malloc(4294967295)"}));
  }
}

TEST(HugeSizes, ReportTotalsAreThePrograms) {
  const ScratchDir dir;
  const fs::path trace = recorded(built_tool("rtrace") + " record -q", dir / "out");
  const auto r = run_command(built_tool("rtrace") + " report --no-resolve " + quoted(trace));
  ASSERT_EQ(r.status, 0) << r.err;
  // 5000000000 + 6000000000 + 4294967295 allocated, the last two leaked.
  EXPECT_NE(r.out.find("\nTOTALS\n  memory (memory allocation in bytes): 4 calls, 3 allocations "
                       "of 15294967295 bytes, 1 releases, 0 temporary\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\nPEAK CONSUMPTION\n  memory: 15294967295 bytes alive after call 3, "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\nLEAKS\n  memory: 2 block(s) leaked, 10294967295 bytes\n"),
            std::string::npos)
      << r.out;
}

TEST(HugeSizes, ConversionsKeepTheWholeSize) {
  const ScratchDir dir;
  const fs::path trace = recorded(built_tool("rtrace") + " record -q", dir / "out");
  for (const std::string format : {"binary", "compact", "text"}) {
    SCOPED_TRACE(format);
    const fs::path converted = dir / ("converted." + format);
    const auto r = run_command(built_tool("rtrace") + " process --to " + format + " -o " +
                               quoted(converted) + " " + quoted(trace));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(allocations_in(converted), kProgramsAllocations);
  }
}

TEST(HugeSizes, TheOriginalsProtocolSaysItCapsThem) {
  const ScratchDir dir;
  std::string err;
  const fs::path trace = recorded(built_tool("sp-rtrace") + " -s -e memory", dir / "out", &err);
  EXPECT_NE(err.find("rtrace: " + trace.string() +
                     ": warning: 2 call(s) of 4 GiB or more recorded with size 4294967295: the "
                     "sp-rtrace protocol's sizes have 32 bits\n"),
            std::string::npos)
      << err;
  EXPECT_EQ(
      allocations_in(trace),
      (std::vector<std::string>{"malloc(4294967295)", "calloc(4294967295)", "malloc(4294967295)"}));
}

}  // namespace
}  // namespace rtrace
