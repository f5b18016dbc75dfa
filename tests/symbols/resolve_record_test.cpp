// A trace recorded by `rtrace record` with the real tracer, resolved: the backtraces name the
// traced program's own functions with the lines of their calls (memory.c, a PIE build).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/test_paths.h"

namespace rtrace::test {
namespace {

std::string quoted(const std::filesystem::path& path) {
  return "'" + path.string() + "'";
}
std::string tool(const std::string& name) {
  return quoted(build_dir() / "bin" / name);
}

TEST(ResolveRecorded, NamesTheProgramsFunctionsAndLines) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir out;
  const CommandResult recorded =
      run_command(tool("rtrace") + " record -s -e memory -o " + quoted(out.path()) + " -x " +
                  quoted(RESOLVE_RECORDED_PROGRAM));
  ASSERT_EQ(recorded.status, 0) << recorded.err;
  std::filesystem::path trace;
  for (const auto& entry : std::filesystem::directory_iterator(out.path())) {
    trace = entry.path();
  }
  ASSERT_FALSE(trace.empty());

  const CommandResult resolved = run_command(tool("rtrace") + " resolve -i " + quoted(trace));
  ASSERT_EQ(resolved.status, 0) << resolved.err;
  const std::string& text = resolved.out;
  EXPECT_NE(text.find("filter=resolve, "), std::string::npos) << text;
  // memory.c's leaking calls and their callers, at the lines of the calls.
  for (const char* frame :
       {" leaf_malloc_leak() at memory.c:24\n", " level3_a() at memory.c:53\n",
        " leaf_calloc_leak() at memory.c:25\n", " leaf_memalign_leak() at memory.c:33\n",
        " main() at memory.c:73\n", " main() at memory.c:75\n"}) {
    EXPECT_NE(text.find(frame), std::string::npos) << frame << " missing in\n" << text;
  }
  // libc's frames name libc functions too (from its symbol table or debug information).
  EXPECT_NE(text.find("__libc_start_main"), std::string::npos) << text;

  const CommandResult by_symbols =
      run_command(tool("rtrace") + " resolve -t elf -i " + quoted(trace));
  ASSERT_EQ(by_symbols.status, 0) << by_symbols.err;
  EXPECT_NE(by_symbols.out.find(" leaf_memalign_leak() from " +
                                std::filesystem::path(RESOLVE_RECORDED_PROGRAM).string() + "\n"),
            std::string::npos)
      << by_symbols.out;
}

}  // namespace
}  // namespace rtrace::test
