// The backtrace depth each way of recording takes by default, through the real tracer: a block
// allocated 100 calls deep gets 64 frames in a compact trace (`rtrace record`, or the tracer
// alone with compact=1 and no depth=) and the original's 10 in the sp-rtrace protocol (`rtrace
// record --format sp-rtrace`, the compatible `sp-rtrace` command, the tracer alone without
// compact=1); -b still sets it. And what that depth gives on a real interpreter: python3's stacks
// reach the program's entry point for nearly all of its bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_paths.h"

namespace rtrace {
namespace {

namespace fs = std::filesystem;
using test::run_command;
using test::ScratchDir;

// The one trace file in `dir`.
fs::path only_trace(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    files.push_back(entry.path());
  }
  EXPECT_EQ(files.size(), 1U);
  return files.empty() ? fs::path() : files[0];
}

struct Recorded {
  std::string header;   // the text trace's first line
  int leak_frames = 0;  // the frames of the leaked malloc(4321)
};

// The header of the trace in `dir` and the frame count of its leaked block, from `rtrace
// process -l`.
Recorded read_back(const fs::path& dir) {
  const auto text =
      run_command(test::built_tool("rtrace") + " process -l -i " + test::quoted(only_trace(dir)));
  EXPECT_EQ(text.status, 0) << text.err;
  Recorded recorded;
  std::istringstream lines(text.out);
  std::string line;
  std::getline(lines, recorded.header);
  bool in_leak = false;
  while (std::getline(lines, line)) {
    if (line.find(" malloc(4321) = ") != std::string::npos) {
      in_leak = true;
    } else if (in_leak && line.starts_with("\t0x")) {
      ++recorded.leak_frames;
    } else {
      in_leak = false;
    }
  }
  return recorded;
}

// The deep-stack program ran as `r` and left in `dir` a trace whose header and leaked block say
// `depth` frames.
void expect_recorded_at_depth(const test::CommandResult& r, const fs::path& dir, int depth) {
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "deep done\n");
  const Recorded recorded = read_back(dir);
  EXPECT_NE(recorded.header.find(", backtrace depth=" + std::to_string(depth) + ", "),
            std::string::npos)
      << recorded.header;
  EXPECT_EQ(recorded.leak_frames, depth);
}

TEST(DefaultDepth, EachCommandRecordsItsDefaultDepth) {
  const struct {
    std::string command;
    int depth;
  } cases[] = {
      {test::built_tool("rtrace") + " record", 64},
      {test::built_tool("rtrace") + " record --no-compress", 64},
      {test::built_tool("rtrace") + " record --format sp-rtrace", 10},
      {test::built_tool("sp-rtrace") + " -s -e memory", 10},
      {test::built_tool("rtrace") + " record -b 20", 20},
      {test::built_tool("rtrace") + " record --format sp-rtrace -b 64", 64},
      {test::built_tool("sp-rtrace") + " -s -e memory -b 5", 5},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.command);
    const ScratchDir out;
    const auto r = run_command(c.command + " -q -o " + test::quoted(out.path()) + " -x " +
                               test::quoted(RTRACE_DEEP_STACK_PROGRAM));
    expect_recorded_at_depth(r, out.path(), c.depth);
  }
}

// The tracer preloaded by hand (managed mode, writing its own file) with no depth= in
// RTRACE_OPTIONS: the default of the format it writes.
TEST(DefaultDepth, TheTracerAloneTakesItsFormatsDefault) {
  const fs::path lib = test::build_dir() / "lib";
  const std::string preload = test::quoted((lib / "librtrace-main.so").string() + ":" +
                                           (lib / "librtrace-memory.so").string());
  const struct {
    std::string options;
    int depth;
  } cases[] = {
      {"start=1,compact=1", 64},
      {"start=1", 10},
      {"start=1,compact=1,depth=12", 12},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.options);
    const ScratchDir out;
    std::string options = c.options;
    options += ",managed=";
    options += out.path().string();
    std::string command = "env -u RTRACE_SOCKET LD_PRELOAD=" + preload;
    command += " RTRACE_OPTIONS=" + test::quoted(options);
    command += " " + test::quoted(RTRACE_DEEP_STACK_PROGRAM);
    const auto r = run_command(command);
    expect_recorded_at_depth(r, out.path(), c.depth);
  }
}

// One stack of a folded export (outermost frame first, frames joined by ';', then a space and
// its bytes).
struct FoldedStack {
  std::string root;  // the outermost frame
  std::size_t frames = 0;
  std::uint64_t bytes = 0;
};

std::vector<FoldedStack> read_folded(const fs::path& file) {
  std::vector<FoldedStack> stacks;
  std::istringstream lines(test::read_file(file));
  std::string line;
  while (std::getline(lines, line)) {
    const std::size_t space = line.rfind(' ');
    EXPECT_NE(space, std::string::npos) << line;
    if (space == std::string::npos) {
      continue;
    }
    const std::string frames = line.substr(0, space);
    stacks.push_back(
        FoldedStack{frames.substr(0, frames.find(';')),
                    1 + static_cast<std::size_t>(std::count(frames.begin(), frames.end(), ';')),
                    std::stoull(line.substr(space + 1))});
  }
  return stacks;
}

// python3 running a short script, recorded by `rtrace record` (with `extra` options), as a
// folded export.
std::vector<FoldedStack> python_stacks(const std::string& extra) {
  const ScratchDir out;
  const std::string script =
      "import json; d=[{\"a\": str(i)} for i in range(20000)]; s=json.dumps(d)";
  const auto r = run_command(test::built_tool("rtrace") + " record -q" + extra + " -o " +
                             test::quoted(out.path()) + " -x /usr/bin/python3 -c '" + script + "'");
  EXPECT_EQ(r.status, 0) << r.err;
  const fs::path folded = out / "stacks.folded";
  const auto exported =
      run_command(test::built_tool("rtrace") + " export folded " +
                  test::quoted(only_trace(out.path())) + " -o " + test::quoted(folded));
  EXPECT_EQ(exported.status, 0) << exported.err;
  return read_folded(folded);
}

// At the default depth, python3's flame graph has the program's entry point (`_start`) as the root
// of nearly all of its bytes; the rest are stacks deeper than 64 frames (the recursion of
// python's parser goes over a hundred), kept at exactly 64: the tracer's walk never stops early.
// With room for them, every byte is rooted at `_start`.
TEST(DefaultDepth, PythonStacksReachTheEntryPoint) {
  std::uint64_t bytes = 0;
  std::uint64_t rooted = 0;
  std::size_t deepest = 0;
  for (const FoldedStack& stack : python_stacks("")) {
    bytes += stack.bytes;
    rooted += stack.root == "_start" ? stack.bytes : 0;
    deepest = std::max(deepest, stack.frames);
    EXPECT_TRUE(stack.root == "_start" || stack.frames == 64)
        << stack.frames << " frames from " << stack.root;
  }
  ASSERT_GT(bytes, 1000000U);
  EXPECT_EQ(deepest, 64U);
  EXPECT_GE(static_cast<double>(rooted) / static_cast<double>(bytes), 0.95);

  deepest = 0;
  for (const FoldedStack& stack : python_stacks(" -b 256")) {
    deepest = std::max(deepest, stack.frames);
    EXPECT_EQ(stack.root, "_start") << stack.frames << " frames";
  }
  EXPECT_GT(deepest, 64U);
  EXPECT_LT(deepest, 256U);
}

}  // namespace
}  // namespace rtrace
