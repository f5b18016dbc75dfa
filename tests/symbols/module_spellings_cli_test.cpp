// A trace that names one library under many spellings (`/usr/lib/x86_64-linux-gnu/././libc.so.6`,
// the /lib symlink): rtrace resolve and report read the library's debug information once, so
// their memory is that of one library however many names it has, and every spelling resolves
// alike.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "support/memory_limit.h"
#include "support/test_paths.h"

namespace rtrace::test {
namespace {

constexpr int kSpellings = 120;
constexpr std::uint64_t kFirstMapping = 0x7f0000000000;
constexpr std::uint64_t kMappingStride = 0x1000000;
// A return address inside libc's code (its executable segment starts at 0x26000 of the file
// and is mapped at the mapping's start).
constexpr std::uint64_t kCodeOffset = 0x72345;

std::string spelling(int index) {
  std::string dots;
  for (int i = 0; i < index / 2; ++i) {
    dots += "./";
  }
  // Half of them through the /lib symlink (Debian's merged /usr), half through /usr/lib.
  return (index % 2 == 0 ? "/usr/lib/x86_64-linux-gnu/" : "/lib/x86_64-linux-gnu/") + dots +
         "libc.so.6";
}

// One mapping of libc per spelling, and one call with a frame in each.
std::string trace_with_spellings(int spellings) {
  std::string text =
      "version=2.0, arch=x86_64, timestamp=2026.11.21 11:09:09, process=./names, pid=9\n"
      "<1> : memory (memory allocation in bytes)\n";
  for (int i = 0; i < spellings; ++i) {
    const std::uint64_t from = kFirstMapping + kMappingStride * static_cast<std::uint64_t>(i);
    text += fmt::format(": {} => {:#x}-{:#x}\n", spelling(i), from, from + 0x156000);
  }
  for (int i = 0; i < spellings; ++i) {
    const std::uint64_t from = kFirstMapping + kMappingStride * static_cast<std::uint64_t>(i);
    text += fmt::format("{}. malloc(16) = {:#x}\n\t{:#x}\n\n", i + 1, 0x1000 + 16 * i,
                        from + kCodeOffset);
  }
  return text;
}

// The frame lines of rtrace resolve's output, without their addresses.
std::vector<std::string> resolved_frames(const std::string& output) {
  std::vector<std::string> frames;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("\t0x")) {
      frames.push_back(line.substr(line.find(' ')));
    }
  }
  return frames;
}

TEST(ModuleSpellings, OneLibraryUnderManyNamesIsIndexedOnce) {
  const ScratchDir dir;
  write_file(dir / "one.txt", trace_with_spellings(1));
  write_file(dir / "many.txt", trace_with_spellings(kSpellings));

  const CommandResult one =
      run_command(built_tool("rtrace") + " resolve -j 1 -i " + quoted(dir / "one.txt"));
  ASSERT_EQ(one.status, 0) << one.err;
  const std::vector<std::string> expected = resolved_frames(one.out);
  ASSERT_EQ(expected.size(), 1U) << one.out;
  // A libc function with its source line, from libc's debug information.
  EXPECT_NE(expected[0].find(" at "), std::string::npos) << one.out;

  // Each spelling indexed on its own took about 18 MB more (120 of them: over 2 GB).
  const CommandResult many = run_command(memory_bounded(600) + built_tool("rtrace") +
                                         " resolve -j 1 -i " + quoted(dir / "many.txt"));
  ASSERT_EQ(many.status, 0) << many.err;
  const std::vector<std::string> frames = resolved_frames(many.out);
  ASSERT_EQ(frames.size(), std::size_t{kSpellings}) << many.out;
  for (const std::string& frame : frames) {
    EXPECT_EQ(frame, expected[0]);
  }

  const CommandResult report = run_command(memory_bounded(600) + built_tool("rtrace") + " report " +
                                           quoted(dir / "many.txt"));
  ASSERT_EQ(report.status, 0) << report.err;
}

}  // namespace
}  // namespace rtrace::test
