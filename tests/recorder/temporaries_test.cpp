// Temporary allocations (released by the very next call of the thread that made them) of a
// program whose four threads make 25000 each at the same time (temporaries_program.c): the
// threads' calls interleave in the trace, and `rtrace report` must still count every one.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/test_paths.h"

namespace rtrace {
namespace {

namespace fs = std::filesystem;
using test::built_tool;
using test::quoted;
using test::run_command;
using test::ScratchDir;

TEST(Temporaries, EachThreadsNextCallDecides) {
  const ScratchDir dir;
  const fs::path out = dir / "out";
  fs::create_directories(out);
  const auto recorded = run_command(built_tool("rtrace") + " record -q -o " + quoted(out) +
                                    " -x " RTRACE_TEMPORARIES_PROGRAM);
  ASSERT_EQ(recorded.status, 0) << recorded.err;
  const auto files = test::files_in(out);
  ASSERT_EQ(files.size(), 1U);
  const auto r = run_command(built_tool("rtrace") + " report --no-resolve " + quoted(files[0]));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string totals = "\nTOTALS\n  memory (memory allocation in bytes): ";
  const std::size_t at = r.out.find(totals);
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string line =
      r.out.substr(at + totals.size(), r.out.find('\n', at + totals.size()) - at - totals.size());
  EXPECT_TRUE(line.ends_with(", 100000 temporary")) << line;
}

}  // namespace
}  // namespace rtrace
