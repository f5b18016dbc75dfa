// The commands' -o as a user meets it: devices and FIFOs are written into, never replaced; an
// output that is also the input (even through standard input) is refused; a signal in the middle
// of writing leaves neither the old file changed nor a temporary behind.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "support/test_paths.h"

extern char** environ;

namespace rtrace {
namespace {

using test::fixture;
using test::read_file;
using test::run_command;
using test::ScratchDir;
namespace fs = std::filesystem;

std::string bin(const std::string& name) {
  return (test::build_dir() / "bin" / name).string();
}
std::string quote(const fs::path& p) {
  return "'" + p.string() + "'";
}

// A character device to write into: a /dev/null twin in `dir` as root (so that a tool that
// replaced it could only harm the twin), /dev/null itself otherwise.
std::string null_device(const ScratchDir& dir) {
  const std::string twin = (dir / "null").string();
  return ::mknod(twin.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0 ? twin : "/dev/null";
}

bool is_null_device(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
}

TEST(OutputCli, EveryCommandWritesIntoADeviceInsteadOfReplacingIt) {
  const ScratchDir dir;
  const std::string device = null_device(dir);
  const auto raw = quote(fixture("sp-rtrace/memory/memory.raw"));
  const auto txt = quote(fixture("sp-rtrace/memory/memory.lc.txt"));
  const std::vector<std::string> commands = {
      bin("rtrace") + " process -i " + raw + " -o " + device,
      bin("rtrace") + " resolve -i " + txt + " -o " + device,
      bin("sp-rtrace-postproc") + " -i " + raw + " -o " + device,
      bin("sp-rtrace-resolve") + " -i " + txt + " -o " + device,
  };
  for (const std::string& command : commands) {
    const auto r = run_command(command);
    EXPECT_EQ(r.status, 0) << command << ": " << r.err;
    EXPECT_EQ(r.out, "") << command;
    EXPECT_TRUE(is_null_device(device)) << command;
  }
  if (device != "/dev/null") {
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
  }
}

TEST(OutputCli, WritesIntoANamedPipe) {
  const ScratchDir dir;
  const std::string fifo = (dir / "pipe").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto r = run_command(
      "cat " + quote(fifo) + " > " + quote(dir / "got") + " & " + bin("rtrace") + " process -i " +
      quote(fixture("sp-rtrace/memory/memory.raw")) + " -o " + fifo + "; wait");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_file(dir / "got"), run_command(bin("rtrace") + " process -i " +
                                                quote(fixture("sp-rtrace/memory/memory.raw")))
                                        .out);
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST(OutputCli, RefusesToOverwriteStandardInput) {
  const ScratchDir dir;
  fs::copy_file(fixture("sp-rtrace/memory/memory.txt"), dir / "t.txt");
  const std::string before = read_file(dir / "t.txt");
  for (const std::string& command :
       {bin("rtrace") + " process -o " + quote(dir / "t.txt") + " < " + quote(dir / "t.txt"),
        bin("rtrace") + " resolve -o " + quote(dir / "t.txt") + " < " + quote(dir / "t.txt"),
        bin("sp-rtrace-postproc") + " -o " + quote(dir / "t.txt") + " < " + quote(dir / "t.txt")}) {
    const auto r = run_command(command);
    EXPECT_EQ(r.status, 1) << command;
    EXPECT_EQ(r.err, "rtrace: " + (dir / "t.txt").string() +
                         ": is also an input; refusing to overwrite it\n")
        << command;
    EXPECT_EQ(read_file(dir / "t.txt"), before) << command;
  }
}

TEST(OutputCli, OutputNamingStandardOutputWritesThere) {
  const ScratchDir dir;
  const auto raw = quote(fixture("sp-rtrace/memory/memory.raw"));
  const auto r = run_command(bin("rtrace") + " process -i " + raw + " -o /dev/stdout");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, run_command(bin("rtrace") + " process -i " + raw).out);
}

// A text trace with `calls` allocation records: megabytes of output from a pipe we control.
std::string many_calls(int first, int calls) {
  std::string text;
  for (int i = first; i < first + calls; ++i) {
    text += std::to_string(i) + ". [00:00:01.000] malloc(" + std::to_string(i) + ") = 0x" +
            std::to_string(1000000 + i) + "\n\t0x401000\n\t0x402000\n\n";
  }
  return text;
}

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    files.push_back(entry.path().filename());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Starts `rtrace process -i FIFO -o OUT`, feeds it until its temporary holds data, then kills
// it with `signal_number` and checks that only the input pipe and the old output remain.
void interrupt_mid_write(int signal_number) {
  const ScratchDir dir;
  const std::string fifo = (dir / "in").string();
  const std::string out = (dir / "out.txt").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  test::write_file(out, "the previous result");

  const std::string rtrace = bin("rtrace");
  std::vector<std::string> args = {rtrace, "process", "-i", fifo, "-o", out};
  std::vector<char*> argv;
  for (std::string& arg : args) {
    argv.push_back(arg.data());
  }
  argv.push_back(nullptr);
  pid_t pid = 0;
  ASSERT_EQ(::posix_spawn(&pid, rtrace.c_str(), nullptr, nullptr, argv.data(), environ), 0);

  const int feed = ::open(fifo.c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(feed, 0);
  const std::string header =
      "version=2.0, arch=x86_64, timestamp=2026.11.21 11:09:09, process=./big, pid=7\n";
  ASSERT_EQ(::write(feed, header.data(), header.size()), static_cast<ssize_t>(header.size()));
  fs::path temporary;
  int next = 1;
  for (int round = 0; round < 200 && temporary.empty(); ++round) {
    const std::string chunk = many_calls(next, 20000);  // about 1 MiB of output
    next += 20000;
    ASSERT_EQ(::write(feed, chunk.data(), chunk.size()), static_cast<ssize_t>(chunk.size()));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    for (const fs::path& name : files_in(dir.path())) {
      if (name.string().starts_with("out.txt.") && fs::file_size(dir / name.string()) > 0) {
        temporary = name;
      }
    }
  }
  ASSERT_FALSE(temporary.empty()) << "rtrace never started writing its output";

  ASSERT_EQ(::kill(pid, signal_number), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ::close(feed);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal_number) << "status " << status;
  EXPECT_EQ(files_in(dir.path()), (std::vector<fs::path>{"in", "out.txt"}))
      << "left behind: " << temporary;
  EXPECT_EQ(read_file(out), "the previous result");
}

TEST(OutputCli, InterruptedWriteLeavesNoTemporaryBehind) {
  interrupt_mid_write(SIGINT);
}

TEST(OutputCli, TerminatedWriteLeavesNoTemporaryBehind) {
  interrupt_mid_write(SIGTERM);
}

}  // namespace
}  // namespace rtrace
