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

// What a recording into a small tmpfs left: the program's output, the recorder's, and what
// `rtrace process` and `rtrace report` made of the trace (read inside the namespace: its tmpfs
// goes with it).
struct SmallDiskRun {
  std::string program_out;
  std::string record_status;
  std::string record_err;
  std::string files;
  std::string process;
  std::string report;
};

SmallDiskRun record_on_small_disk(const std::string& recorder, const std::string& tmpfs_size) {
  const ScratchDir scratch;
  const fs::path small = scratch / "small";
  const fs::path out = scratch / "out";
  fs::create_directory(small);
  fs::create_directory(out);
  const std::string trace = quoted(small) + "/*.rtrace";
  const std::string inside =
      "mount -t tmpfs -o size=" + tmpfs_size + " tmpfs " + quoted(small) + " || exit 9; " +
      recorder + " -o " + quoted(small) + " -x " + quoted(RTRACE_DISK_FILLING_PROGRAM) + " > " +
      quoted(out / "program.out") + " 2> " + quoted(out / "record.err") + "; echo $? > " +
      quoted(out / "record.status") + "; ls " + quoted(small) + " > " + quoted(out / "files") +
      "; " + built_tool("rtrace") + " process " + trace + " > " + quoted(out / "process.txt") +
      " 2>&1; " + built_tool("rtrace") + " report " + trace + " > " + quoted(out / "report.txt") +
      " 2>&1";
  test::write_file(scratch / "inside.sh", inside);
  const std::string unshare =
      ::geteuid() == 0 ? "unshare --mount" : "unshare --mount --map-root-user";
  const auto run = run_command(unshare + " sh " + quoted(scratch / "inside.sh"));
  EXPECT_EQ(run.status, 0) << run.err;
  return {read_file(out / "program.out"), read_file(out / "record.status"),
          read_file(out / "record.err"),  read_file(out / "files"),
          read_file(out / "process.txt"), read_file(out / "report.txt")};
}

TEST(OutOfSpace, TheTraceEndsSayingSoAndTheProgramRunsOn) {
  const SmallDiskRun run =
      record_on_small_disk(built_tool("rtrace") + " record -e memory", kTmpfsSize);

  // The program made every block and ended normally; the recorder says what happened to the
  // trace, when it happened and again at the end, and exits 1 (the trace is not whole).
  EXPECT_EQ(run.program_out, "made 1000000 blocks\n");
  EXPECT_EQ(run.record_status, "1\n");
  EXPECT_TRUE(std::regex_search(
      run.record_err,
      std::regex("rtrace: trace of process [0-9]+: no space left on device in .*/small: the "
                 "trace ends here; the program runs on untraced\n")))
      << run.record_err;
  EXPECT_TRUE(std::regex_search(
      run.record_err, std::regex("rtrace: .*/small/recorder_disk_filling_program\\.[0-9]+\\."
                                 "rtrace: warning: trace cut short: no space was left on the "
                                 "device \\(the trace's end says so\\)\n")))
      << run.record_err;
  EXPECT_TRUE(
      std::regex_match(run.files, std::regex("recorder_disk_filling_program\\.[0-9]+\\.rtrace\n")));

  // The trace reads without a warning and ends with its reason: no space.
  EXPECT_TRUE(std::regex_search(
      run.process, std::regex("\n## trace end: pid=[0-9]+, reason=no-space, time=[0-9.]+, ")))
      << run.process.substr(0, 2000);
  EXPECT_EQ(run.process.find("warning"), std::string::npos) << run.process.substr(0, 2000);
  EXPECT_TRUE(std::regex_search(run.process, std::regex("\n[0-9]+\\. \\[[0-9:.]+\\] malloc\\(")));
  EXPECT_NE(run.report.find("\ntrace ended by: no space left on device for the trace (tracing "
                            "stopped there; the program ran on)\n"),
            std::string::npos)
      << run.report.substr(0, 2000);
  EXPECT_NE(run.report.find("\nALIVE WHEN TRACING STOPPED (no space was left for the trace: not "
                            "known to be leaks)\n"),
            std::string::npos)
      << run.report.substr(0, 2000);
}

// sp-rtrace's recorder copies the stream into the file itself: a write that fails keeps what was
// written (before, the whole file was removed and the error named "<stdout>"), says so at once,
// and reads on so that the program never blocks.
TEST(OutOfSpace, TheRecordersOwnCopyKeepsWhatItWrote) {
  const SmallDiskRun run = record_on_small_disk(built_tool("sp-rtrace") + " -s -e memory", "1m");
  EXPECT_EQ(run.program_out, "made 1000000 blocks\n");
  EXPECT_EQ(run.record_status, "1\n");
  EXPECT_TRUE(std::regex_search(
      run.record_err,
      std::regex("rtrace: trace of process [0-9]+: .*/small: No space left on device: the trace "
                 "ends here; the program runs on untraced\n")))
      << run.record_err;
  EXPECT_TRUE(std::regex_search(
      run.record_err,
      std::regex("rtrace: .*/small/[0-9]+-0\\.rtrace: warning: trace incomplete: writing it "
                 "failed \\(.*/small: No space left on device\\); what was written before is "
                 "kept\n")))
      << run.record_err;
  EXPECT_TRUE(std::regex_match(run.files, std::regex("[0-9]+-0\\.rtrace\n"))) << run.files;
  // What was written reads back, up to the damage.
  EXPECT_TRUE(std::regex_search(run.process, std::regex("\n[0-9]+\\. \\[[0-9:.]+\\] malloc\\([0-9]+\\) = 0x")))
      << run.process.substr(0, 2000);
}

}  // namespace
}  // namespace rtrace
