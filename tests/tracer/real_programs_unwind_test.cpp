// The tracer's own unwinder (src/tracer/unwind/stack_walker.h) against libunwind on real
// programs, through `rtrace record` and the folded export: python3, bash and git, recorded once
// with each, with room for their deepest stacks (python's parser recurses over a hundred frames
// deep) and the address space laid out the same in both runs (setarch -R), must give the same
// stacks with the same bytes, every one of them down to the program's first frame.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_paths.h"

namespace rtrace {
namespace {

namespace fs = std::filesystem;
using test::run_command;
using test::ScratchDir;

// The folded export of `command` recorded at depth 256 with RTRACE_UNWINDER=`unwinder`. Both
// values the test gives have the same length: the environment, which the programs copy, is then
// the same size, and so are their allocations and the stack's place.
std::string folded_stacks(const std::string& command, const std::string& unwinder) {
  const ScratchDir out;
  const auto recorded = run_command("setarch -R env PYTHONHASHSEED=0 RTRACE_UNWINDER=" + unwinder +
                                    " " + test::built_tool("rtrace") + " record -q -b 256 -o " +
                                    test::quoted(out.path()) + " -x " + command + " >/dev/null");
  EXPECT_EQ(recorded.status, 0) << recorded.err;
  const auto files = test::files_in(out.path());
  EXPECT_EQ(files.size(), 1U);
  if (files.size() != 1) {
    return {};
  }
  const fs::path folded = out / "stacks.folded";
  const auto exported = run_command(test::built_tool("rtrace") + " export folded " +
                                    test::quoted(files[0]) + " -o " + test::quoted(folded));
  EXPECT_EQ(exported.status, 0) << exported.err;
  return test::read_file(folded);
}

// `folded` with every unnamed frame ("0x7ffff6e92c99 in _json.so") given as its distance from the
// lowest such frame of its module ("+0x2c99 in _json.so"), the stacks sorted: libraries loaded
// late (python's extension modules) land elsewhere when the tracer's own mappings differ, which
// they do with libunwind (its caches), even with the address space laid out the same.
std::string relative_to_modules(const std::string& folded) {
  static const std::regex unnamed("0x([0-9a-f]+) in ([^;]+?)(?=;| [0-9]+$)");
  std::map<std::string, std::uint64_t> lowest;
  std::istringstream lines(folded);
  std::string line;
  while (std::getline(lines, line)) {
    for (std::sregex_iterator it(line.begin(), line.end(), unnamed), end; it != end; ++it) {
      const std::uint64_t address = std::stoull((*it)[1].str(), nullptr, 16);
      const auto [place, added] = lowest.emplace((*it)[2].str(), address);
      place->second = std::min(place->second, address);
    }
  }
  std::vector<std::string> stacks;
  lines = std::istringstream(folded);
  while (std::getline(lines, line)) {
    std::string relative;
    auto from = line.cbegin();
    for (std::sregex_iterator it(line.begin(), line.end(), unnamed), end; it != end; ++it) {
      const std::uint64_t address = std::stoull((*it)[1].str(), nullptr, 16);
      std::ostringstream frame;
      frame << "+0x" << std::hex << address - lowest.at((*it)[2].str()) << " in " << (*it)[2];
      relative.append(from, (*it)[0].first).append(frame.str());
      from = (*it)[0].second;
    }
    stacks.push_back(relative.append(from, line.cend()));
  }
  std::sort(stacks.begin(), stacks.end());
  std::string joined;
  for (const std::string& stack : stacks) {
    joined += stack + "\n";
  }
  return joined;
}

// The outermost frame of every stack of a folded export: the walks' last frames.
std::set<std::string> roots_of(const std::string& folded) {
  std::istringstream lines(folded);
  std::set<std::string> roots;
  std::string line;
  while (std::getline(lines, line)) {
    const std::string frames = line.substr(0, line.rfind(' '));  // without the bytes
    roots.insert(frames.substr(0, frames.find(';')));
  }
  return roots;
}

TEST(RealProgramsUnwind, FastUnwinderWalksWhatLibunwindWalks) {
  const struct {
    std::string command;
    std::string root;  // the entry point's name in the folded export
  } programs[] = {
      {"/usr/bin/python3 -c 'import json; d=[{\"a\": str(i)} for i in range(20000)]; "
       "s=json.dumps(d)'",
       "_start"},
      {"/bin/bash -c 'declare -A a; for i in 1 2 3; do a[$i]=$(echo $i); done; echo ${a[2]}'",
       "_start"},
      // git is stripped: its entry point has no name, only its address.
      {"git --no-pager -C " + test::quoted(test::source_dir()) + " log --oneline -20", ""},
  };
  for (const auto& program : programs) {
    SCOPED_TRACE(program.command);
    // Any value other than "libunwind" leaves the fast unwinder on.
    const std::string fast = folded_stacks(program.command, "fast-walk");
    const std::string slow = folded_stacks(program.command, "libunwind");
    EXPECT_GT(std::count(fast.begin(), fast.end(), '\n'), 100);
    EXPECT_EQ(relative_to_modules(fast), relative_to_modules(slow));
    const std::set<std::string> roots = roots_of(fast);
    std::string listed;
    for (const std::string& root : roots) {
      listed += root + "\n";
    }
    ASSERT_EQ(roots.size(), 1U) << listed;
    if (!program.root.empty()) {
      EXPECT_EQ(*roots.begin(), program.root);
    }
  }
}

// The stacks of programs/unwind_fallbacks.c's blocks (the lines ending in its function leaf), in
// order, the signal trampoline's address (the C library has no name for it) as __restore_rt.
std::vector<std::string> leaf_stacks(const std::string& folded) {
  static const std::regex trampoline("0x[0-9a-f]+ in libc\\.so\\.6");
  std::vector<std::string> stacks;
  std::istringstream lines(folded);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find(";leaf ") != std::string::npos) {
      stacks.push_back(std::regex_replace(line, trampoline, "__restore_rt"));
    }
  }
  std::sort(stacks.begin(), stacks.end());
  return stacks;
}

// The frames the fast unwinder does not know (no call frame information, a CFA computed by an
// expression, a signal frame) are walked by libunwind: whole stacks, the same with both, in the
// main thread and in another.
TEST(RealProgramsUnwind, FramesLeftToLibunwindKeepWholeStacks) {
  const std::string program = test::quoted(RTRACE_UNWIND_FALLBACKS_PROGRAM);
  const std::string fast = folded_stacks(program, "fast-walk");
  EXPECT_EQ(relative_to_modules(fast), relative_to_modules(folded_stacks(program, "libunwind")));
  const std::string start = "_start;__libc_start_main;__libc_start_call_main;main;";
  const std::string handler = start + "raise;__pthread_kill_implementation;__restore_rt;";
  const std::string thread = "clone3;start_thread;worker;";
  const std::vector<std::string> expected = {
      start + "no_cfi;leaf 111",
      handler + "no_cfi;leaf 142",
      handler + "on_signal;leaf 141",
      start + "realigned;leaf 121",
      start + "realigned;no_cfi;leaf 122",
      thread + "leaf 151",
      thread + "no_cfi;leaf 152",
      thread + "realigned;leaf 153",
      thread + "realigned;no_cfi;leaf 154",
  };
  EXPECT_EQ(leaf_stacks(fast), expected);
}

}  // namespace
}  // namespace rtrace
