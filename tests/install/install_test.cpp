// `cmake --install` into a fresh prefix: every command, module, header and man page lands where
// it belongs, and the installed rtrace records a real program with the installed tracer modules
// (found relative to itself, so the tree may move) and post-processes the trace with the
// installed tools.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/test_paths.h"

namespace rtrace {
namespace {

namespace fs = std::filesystem;
using test::run_command;
using test::ScratchDir;

std::string quote(const fs::path& p) {
  return "'" + p.string() + "'";
}

TEST(Install, InstalledToolsRecordAndProcessARealProgram) {
  const ScratchDir dir;
  const fs::path staged = dir / "staged";
  const auto install = run_command(std::string(RTRACE_CMAKE_COMMAND) + " --install " +
                                   quote(test::build_dir()) + " --prefix " + quote(staged));
  ASSERT_EQ(install.status, 0) << install.err;
  for (const char* file :
       {"bin/rtrace", "bin/sp-rtrace", "bin/sp-rtrace-postproc", "bin/sp-rtrace-resolve",
        "lib/rtrace/librtrace-main.so", "lib/rtrace/librtrace-memory.so",
        "lib/rtrace/librtrace-file.so", "lib/rtrace/librtrace-shmsysv.so",
        "lib/rtrace/librtrace-shmposix.so", "lib/rtrace/librtrace-memtransfer.so",
        "lib/rtrace/librtrace-gobject.so", "lib/rtrace/librtrace-pagemap.so",
        "lib/librtrace-context.so", "include/rtrace/sp_rtrace_context.h", "share/man/man1/rtrace.1",
        "share/man/man1/rtrace-record.1", "share/man/man1/sp-rtrace-postproc.1"}) {
    EXPECT_TRUE(fs::is_regular_file(staged / file)) << file;
  }

  // The installed tree is relocatable: the tools find their modules relative to themselves.
  const fs::path prefix = dir / "moved";
  fs::rename(staged, prefix);
  const std::string bin = (prefix / "bin").string() + "/";
  const std::string no_override = "env -u RTRACE_LIBDIR ";

  const auto modules = run_command(no_override + bin + "rtrace record -l");
  ASSERT_EQ(modules.status, 0) << modules.err;
  EXPECT_NE(modules.out.find("(in " + (prefix / "lib" / "rtrace").string() + ")"),
            std::string::npos)
      << modules.out;

  fs::create_directory(dir / "traces");
  const auto record =
      run_command(no_override + bin + "rtrace record -q -s -e memory:file -o " +
                  quote(dir / "traces") + " -x " + quote(test::build_dir() / "examples" / "leaky"));
  ASSERT_EQ(record.status, 0) << record.err;
  fs::path trace;
  for (const auto& entry : fs::directory_iterator(dir / "traces")) {
    trace = entry.path();
  }
  ASSERT_FALSE(trace.empty()) << "no trace recorded";

  const auto leaks = run_command(bin + "rtrace process -lc -i " + quote(trace));
  ASSERT_EQ(leaks.status, 0) << leaks.err;
  // The traced program ran with the installed modules, and leaked.
  EXPECT_NE(
      leaks.out.find(": " + (prefix / "lib" / "rtrace" / "librtrace-memory.so").string() + " => "),
      std::string::npos)
      << leaks.out;
  EXPECT_NE(leaks.out.find("# Resource - memory (memory allocation in bytes):\n# "),
            std::string::npos)
      << leaks.out;
  // The installed file module found librtrace-main.so beside itself.
  EXPECT_NE(leaks.out.find("# Resource - fd (file descriptor):\n# "), std::string::npos)
      << leaks.out;

  const auto resolved = run_command(bin + "sp-rtrace-postproc -l -c -i " + quote(trace) + " | " +
                                    bin + "sp-rtrace-resolve");
  ASSERT_EQ(resolved.status, 0) << resolved.err;
  EXPECT_NE(resolved.out.find(" main() at leaky.c:"), std::string::npos) << resolved.out;
}

}  // namespace
}  // namespace rtrace
