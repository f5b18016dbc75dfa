// A traced program that fills the file system its trace goes to: the recorder says so at once,
// the trace ends with an end record saying "no space" (the room the recorder kept aside for that
// is freed then), and the program runs to its end, untraced from then on. Recorded into a small
// tmpfs mounted in a mount namespace of the test's own (a user namespace too when not root).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <string>

#include "support/test_paths.h"

namespace rtrace {
namespace {

namespace fs = std::filesystem;
using test::built_tool;
using test::quoted;
using test::read_file;
using test::run_command;
using test::ScratchDir;

// The recorder keeps 2 MiB aside (protocol/file_from_recorder.h); the trace gets 256 KiB more,
// far less than the program's two million calls take.
constexpr const char* kTmpfsSize = "2304k";

TEST(OutOfSpace, TheTraceEndsSayingSoAndTheProgramRunsOn) {
  const ScratchDir scratch;
  const fs::path small = scratch / "small";
  const fs::path out = scratch / "out";
  fs::create_directory(small);
  fs::create_directory(out);
  const std::string trace = quoted(small) + "/*.rtrace";
  // Everything that reads the trace runs inside the namespace: its tmpfs goes with it.
  const std::string inside =
      "mount -t tmpfs -o size=" + std::string(kTmpfsSize) + " tmpfs " + quoted(small) +
      " || exit 9; " + built_tool("rtrace") + " record -e memory -o " + quoted(small) + " " +
      quoted(RTRACE_DISK_FILLING_PROGRAM) + " > " + quoted(out / "program.out") + " 2> " +
      quoted(out / "record.err") + "; echo $? > " + quoted(out / "record.status") + "; ls " +
      quoted(small) + " > " + quoted(out / "files") + "; " + built_tool("rtrace") + " process " +
      trace + " > " + quoted(out / "process.txt") + " 2>&1; " + built_tool("rtrace") + " report " +
      trace + " > " + quoted(out / "report.txt") + " 2>&1";
  const std::string unshare =
      ::geteuid() == 0 ? "unshare --mount" : "unshare --mount --map-root-user";
  test::write_file(scratch / "inside.sh", inside);
  const auto run = run_command(unshare + " sh " + quoted(scratch / "inside.sh"));
  ASSERT_EQ(run.status, 0) << run.err;

  // The program made every block and ended normally; the recorder says what happened to the
  // trace, when it happened and again at the end, and exits 1 (the trace is not whole).
  EXPECT_EQ(read_file(out / "program.out"), "made 1000000 blocks\n");
  EXPECT_EQ(read_file(out / "record.status"), "1\n");
  const std::string err = read_file(out / "record.err");
  EXPECT_TRUE(std::regex_search(
      err, std::regex("rtrace: trace of process [0-9]+: no space left on device in .*/small: the "
                      "trace ends here; the program runs on untraced\n")))
      << err;
  EXPECT_TRUE(std::regex_search(
      err, std::regex("rtrace: .*/small/recorder_disk_filling_program\\.[0-9]+\\.rtrace: "
                      "warning: trace cut short: no space was left on the device \\(the trace's "
                      "end says so\\)\n")))
      << err;
  EXPECT_TRUE(std::regex_match(read_file(out / "files"),
                               std::regex("recorder_disk_filling_program\\.[0-9]+\\.rtrace\n")));

  // The trace reads without a warning and ends with its reason: no space.
  const std::string process = read_file(out / "process.txt");
  EXPECT_TRUE(std::regex_search(
      process, std::regex("\n## trace end: pid=[0-9]+, reason=no-space, time=[0-9.]+, ")))
      << process.substr(0, 2000);
  EXPECT_EQ(process.find("warning"), std::string::npos) << process.substr(0, 2000);
  EXPECT_TRUE(std::regex_search(process, std::regex("\n[0-9]+\\. \\[[0-9:.]+\\] malloc\\(")));
  const std::string report = read_file(out / "report.txt");
  EXPECT_NE(report.find("\ntrace ended by: no space left on device for the trace (tracing stopped "
                        "there; the program ran on)\n"),
            std::string::npos)
      << report.substr(0, 2000);
  EXPECT_NE(report.find("\nALIVE WHEN TRACING STOPPED (no space was left for the trace: not known "
                        "to be leaks)\n"),
            std::string::npos)
      << report.substr(0, 2000);
}

}  // namespace
}  // namespace rtrace
