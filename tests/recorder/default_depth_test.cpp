// The backtrace depth each way of recording takes by default, through the real tracer: a block
// allocated 100 calls deep gets 64 frames in a compact trace (`rtrace record`, or the tracer
// alone with compact=1 and no depth=) and the original's 10 in the sp-rtrace protocol (`rtrace
// record --format sp-rtrace`, the compatible `sp-rtrace` command, the tracer alone without
// compact=1); -b still sets it.
#include <gtest/gtest.h>

#include <filesystem>
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
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "deep done\n");
    const Recorded recorded = read_back(out.path());
    EXPECT_NE(recorded.header.find(", backtrace depth=" + std::to_string(c.depth) + ", "),
              std::string::npos)
        << recorded.header;
    EXPECT_EQ(recorded.leak_frames, c.depth);
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
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "deep done\n");
    const Recorded recorded = read_back(out.path());
    EXPECT_NE(recorded.header.find(", backtrace depth=" + std::to_string(c.depth) + ", "),
              std::string::npos)
        << recorded.header;
    EXPECT_EQ(recorded.leak_frames, c.depth);
  }
}

}  // namespace
}  // namespace rtrace
