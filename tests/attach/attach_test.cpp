// `rtrace record -p PID` on real processes started without rtrace: the server programs of this
// folder (attach_server.c, attach_server_cxx.cpp, attach_server.py), attached, told what to do
// through a pipe while traced, detached with -t or Ctrl-C, and left to exit on their own.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/test_paths.h"

extern char** environ;

namespace rtrace {
namespace {

namespace fs = std::filesystem;
using test::quoted;
using test::run_command;
using test::ScratchDir;

std::string rtrace_path() {
  return (test::build_dir() / "bin" / "rtrace").string();
}

// A child process with pipes to its standard input and from its standard output or error.
class Child {
 public:
  Child(const std::vector<std::string>& argv, bool pipe_stdout, bool pipe_stderr,
        const std::vector<std::string>& extra_environment = {}) {
    int in[2];
    int out[2];
    EXPECT_EQ(::pipe2(in, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(out, O_CLOEXEC), 0);
    posix_spawn_file_actions_t actions;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    if (pipe_stdout) {
      ::posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    }
    if (pipe_stderr) {
      ::posix_spawn_file_actions_adddup2(&actions, out[1], 2);
    }
    std::vector<char*> args;
    for (const std::string& arg : argv) {
      args.push_back(const_cast<char*>(arg.c_str()));
    }
    args.push_back(nullptr);
    std::vector<std::string> environment_text(extra_environment);
    for (char** e = environ; *e != nullptr; ++e) {
      environment_text.emplace_back(*e);
    }
    std::vector<char*> environment;
    for (std::string& entry : environment_text) {
      environment.push_back(entry.data());
    }
    environment.push_back(nullptr);
    EXPECT_EQ(::posix_spawnp(&pid_, args[0], &actions, nullptr, args.data(), environment.data()),
              0);
    ::posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    in_ = in[1];
    out_ = out[0];
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (!reaped_) {
      ::kill(pid_, SIGKILL);
      wait();
    }
    ::close(in_);
    ::close(out_);
  }

  pid_t pid() const { return pid_; }

  // Reads until `text` has come (true), or the output ends or 30 s pass (false).
  bool read_until(const std::string& text) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (output_.find(text, consumed_) == std::string::npos) {
      pollfd fd{out_, POLLIN, 0};
      if (std::chrono::steady_clock::now() > deadline || ::poll(&fd, 1, 1000) < 0) {
        return false;
      }
      if ((fd.revents & (POLLIN | POLLHUP)) != 0) {
        char buffer[4096];
        const ssize_t n = ::read(out_, buffer, sizeof buffer);
        if (n <= 0) {
          return false;
        }
        output_.append(buffer, static_cast<std::size_t>(n));
      }
    }
    consumed_ = output_.find(text, consumed_) + text.size();
    return true;
  }

  // Sends one command letter of the servers' protocol and waits for its "ok".
  bool command(char letter) {
    const char line[2] = {letter, '\n'};
    return ::write(in_, line, 2) == 2 && read_until("ok\n");
  }

  // Its exit status, or 128 + N when signal N ended it.
  int wait() {
    if (!reaped_) {
      int status = 0;
      ::waitpid(pid_, &status, 0);
      status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      reaped_ = true;
    }
    return status_;
  }

  // Everything it printed (to the piped stream) until it exited.
  std::string rest_of_output() {
    char buffer[4096];
    ssize_t n = 0;
    while ((n = ::read(out_, buffer, sizeof buffer)) > 0) {
      output_.append(buffer, static_cast<std::size_t>(n));
    }
    return output_;
  }

 private:
  pid_t pid_ = -1;
  int in_ = -1;
  int out_ = -1;
  std::string output_;
  std::size_t consumed_ = 0;
  bool reaped_ = false;
  int status_ = 0;
};

// `rtrace record -p PID -o DIR [options]`, running until it is told to detach.
class AttachedRecorder : public Child {
 public:
  AttachedRecorder(pid_t pid, const fs::path& output, std::vector<std::string> options = {},
                   const std::vector<std::string>& environment = {})
      : Child(arguments(pid, output, std::move(options)), false, true, environment) {}

  // Waits for "attached to process PID" (false when the recorder ended instead).
  bool attached(pid_t pid) {
    return read_until("rtrace: attached to process " + std::to_string(pid) + ";");
  }

 private:
  static std::vector<std::string> arguments(pid_t pid, const fs::path& output,
                                            std::vector<std::string> options) {
    std::vector<std::string> argv{rtrace_path(),       "record", "-p",
                                  std::to_string(pid), "-o",     output.string()};
    argv.insert(argv.end(), options.begin(), options.end());
    return argv;
  }
};

fs::path only_trace(const fs::path& directory) {
  const std::vector<fs::path> files = test::files_in(directory);
  EXPECT_EQ(files.size(), 1U);
  return files.empty() ? fs::path() : files[0];
}

// The leaked calls of `rtrace process -l` ("malloc(1234)", one per block) and its summaries.
std::vector<std::string> leaks_of(const fs::path& trace) {
  const test::CommandResult result =
      run_command(test::built_tool("rtrace") + " process -l -i " + quoted(trace));
  EXPECT_EQ(result.status, 0) << result.err;
  static const std::regex call(R"(^\d+\. (?:\[[0-9:.]+\] )?(.+\(\w+\)) = .*)");
  std::vector<std::string> found;
  std::istringstream lines(result.out);
  std::string line;
  std::smatch match;
  while (std::getline(lines, line)) {
    if (std::regex_match(line, match, call)) {
      found.push_back(match[1].str());
    } else if (line.starts_with("# ")) {
      found.push_back(line);
    }
  }
  return found;
}

std::string text_of(const fs::path& trace) {
  const test::CommandResult result =
      run_command(test::built_tool("rtrace") + " process -i " + quoted(trace));
  EXPECT_EQ(result.status, 0) << result.err;
  return result.out;
}

test::CommandResult detach(pid_t pid) {
  return run_command(test::built_tool("rtrace") + " record -t " + std::to_string(pid));
}

const std::vector<std::string> kFiveLeaks = {"malloc(1234)",
                                             "malloc(1234)",
                                             "malloc(1234)",
                                             "malloc(1234)",
                                             "malloc(1234)",
                                             "# Resource - memory (memory allocation in bytes):",
                                             "# 5 block(s) leaked with total size of 6170 bytes"};

// The whole story: a C server churning in 4 threads is attached about 1 s after its start;
// while traced it frees the blocks it allocated before (not leaks, not errors) and leaks 5
// blocks; -t detaches it about 2 s after the attach; it runs on (its threads churn again) and
// exits with its own status. The trace's leaks are exactly the 5 blocks.
TEST(Attach, TracesTheWindowBetweenAttachAndDetach) {
  const ScratchDir out;
  Child server({RTRACE_ATTACH_SERVER}, true, false);
  ASSERT_TRUE(server.read_until("ok\n"));
  std::this_thread::sleep_for(std::chrono::seconds(1));
  AttachedRecorder recorder(server.pid(), out.path());
  ASSERT_TRUE(recorder.attached(server.pid())) << recorder.rest_of_output();
  const auto attached_at = std::chrono::steady_clock::now();
  ASSERT_TRUE(server.command('f'));
  ASSERT_TRUE(server.command('p'));  // every thread between two pairs
  ASSERT_TRUE(server.command('l'));
  std::this_thread::sleep_until(attached_at + std::chrono::seconds(2));
  const test::CommandResult detached = detach(server.pid());
  EXPECT_EQ(detached.status, 0) << detached.err;
  EXPECT_EQ(detached.err, "rtrace: detached from process " + std::to_string(server.pid()) + "\n");
  EXPECT_EQ(recorder.wait(), 0) << recorder.rest_of_output();
  ASSERT_TRUE(server.command('r'));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(server.command('p'));  // its threads still run
  ASSERT_TRUE(server.command('r'));
  ASSERT_TRUE(server.command('x'));
  EXPECT_EQ(server.wait(), 7);

  const fs::path trace = only_trace(out.path());
  EXPECT_EQ(leaks_of(trace), kFiveLeaks);
  const std::string text = text_of(trace);
  // The blocks of 3001 bytes were allocated before the attach: only their releases are there.
  EXPECT_EQ(text.find("malloc(3001)"), std::string::npos);
  EXPECT_NE(text.find("free(0x"), std::string::npos);
  EXPECT_NE(text.find("reason=toggle-off"), std::string::npos) << text.substr(0, 2000);
}

// The report's text: its line saying where the trace began, and the totals of memory.
std::vector<std::string> report_lines_of(const fs::path& trace) {
  const test::CommandResult result =
      run_command(test::built_tool("rtrace") + " report " + quoted(trace));
  EXPECT_EQ(result.status, 0) << result.err;
  std::vector<std::string> found;
  std::istringstream lines(result.out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.starts_with("traced from: ") || line.starts_with("  memory (")) {
      found.push_back(line);
    }
  }
  return found;
}

// Ctrl-C on the recorder detaches as -t does; the process goes on and can be attached again.
// Its threads are paused while it is attached, so the report's counts are exact: the first
// trace has the releases of the 3 blocks allocated before it (free(NULL) the second time).
TEST(Attach, InterruptingTheRecorderDetachesAndTheProcessCanBeAttachedAgain) {
  Child server({RTRACE_ATTACH_SERVER}, true, false);
  ASSERT_TRUE(server.read_until("ok\n"));
  for (int round = 0; round < 2; ++round) {
    const ScratchDir out;
    ASSERT_TRUE(server.command('p'));
    AttachedRecorder recorder(server.pid(), out.path());
    ASSERT_TRUE(recorder.attached(server.pid())) << recorder.rest_of_output();
    ASSERT_TRUE(server.command('f'));
    ASSERT_TRUE(server.command('l'));
    ::kill(recorder.pid(), SIGINT);
    EXPECT_EQ(recorder.wait(), 0) << recorder.rest_of_output();
    const fs::path trace = only_trace(out.path());
    EXPECT_EQ(leaks_of(trace), kFiveLeaks);
    EXPECT_EQ(report_lines_of(trace),
              (std::vector<std::string>{
                  "traced from: an attach to the running process (rtrace record -p)",
                  // The second time the server's three blocks are gone: it frees null pointers,
                  // which release nothing.
                  round == 0 ? "  memory (memory allocation in bytes): 8 calls, 5 allocations of "
                               "6170 bytes, 3 releases (3 freed, allocated before tracing), 0 "
                               "temporary"
                             : "  memory (memory allocation in bytes): 8 calls, 5 allocations of "
                               "6170 bytes, 0 releases (0 freed, allocated before tracing), 3 "
                               "null releases, 0 temporary"}));
    ASSERT_TRUE(server.command('r'));
  }
  ASSERT_TRUE(server.command('x'));
  EXPECT_EQ(server.wait(), 7);
}

// A process that exits while attached ends its trace as a launched one would (reason=exit), and
// the recorder ends with it.
TEST(Attach, AProcessExitingWhileAttachedEndsItsTrace) {
  const ScratchDir out;
  Child server({RTRACE_ATTACH_SERVER}, true, false);
  ASSERT_TRUE(server.read_until("ok\n"));
  AttachedRecorder recorder(server.pid(), out.path());
  ASSERT_TRUE(recorder.attached(server.pid())) << recorder.rest_of_output();
  ASSERT_TRUE(server.command('p'));
  ASSERT_TRUE(server.command('l'));
  ASSERT_TRUE(server.command('x'));
  EXPECT_EQ(server.wait(), 7);
  EXPECT_EQ(recorder.wait(), 0) << recorder.rest_of_output();
  const fs::path trace = only_trace(out.path());
  EXPECT_EQ(leaks_of(trace), kFiveLeaks);
  EXPECT_NE(text_of(trace).find("reason=exit"), std::string::npos);
}

// Attach and detach over and over on one churning process: it never crashes nor hangs.
// RTRACE_FULL_SWEEP (the slow run): 100 cycles.
TEST(AttachCycles, RepeatedAttachAndDetachLeaveTheProcessRunning) {
  const int cycles = std::getenv("RTRACE_FULL_SWEEP") != nullptr ? 100 : 5;
  Child server({RTRACE_ATTACH_SERVER}, true, false);
  ASSERT_TRUE(server.read_until("ok\n"));
  for (int cycle = 0; cycle < cycles; ++cycle) {
    const ScratchDir out;
    AttachedRecorder recorder(server.pid(), out.path());
    ASSERT_TRUE(recorder.attached(server.pid())) << cycle << ": " << recorder.rest_of_output();
    const test::CommandResult detached = detach(server.pid());
    ASSERT_EQ(detached.status, 0) << cycle << ": " << detached.err;
    ASSERT_EQ(recorder.wait(), 0) << cycle << ": " << recorder.rest_of_output();
    ASSERT_EQ(test::files_in(out.path()).size(), 1U) << cycle;
  }
  ASSERT_TRUE(server.command('p'));
  ASSERT_TRUE(server.command('r'));
  ASSERT_TRUE(server.command('x'));
  EXPECT_EQ(server.wait(), 7);
}

// Detached through its recorder's pid (-t RECORDER_PID), as Ctrl-C on it would.
TEST(Attach, TracesACxxProgram) {
  const ScratchDir out;
  Child server({RTRACE_ATTACH_SERVER_CXX}, true, false);
  ASSERT_TRUE(server.read_until("ok\n"));
  AttachedRecorder recorder(server.pid(), out.path());
  ASSERT_TRUE(recorder.attached(server.pid())) << recorder.rest_of_output();
  ASSERT_TRUE(server.command('p'));
  ASSERT_TRUE(server.command('l'));
  const test::CommandResult detached = detach(recorder.pid());
  EXPECT_EQ(detached.status, 0) << detached.err;
  EXPECT_EQ(detached.err, "");
  EXPECT_EQ(recorder.wait(), 0) << recorder.rest_of_output();
  ASSERT_TRUE(server.command('r'));
  ASSERT_TRUE(server.command('x'));
  EXPECT_EQ(server.wait(), 7);
  const std::vector<std::string> expected(5, "operator new[](unsigned long)(1234)");
  std::vector<std::string> leaks = leaks_of(only_trace(out.path()));
  ASSERT_EQ(leaks.size(), 7U) << ::testing::PrintToString(leaks);
  leaks.resize(5);
  EXPECT_EQ(leaks, expected);
}

TEST(Attach, TracesAPythonProgram) {
  const ScratchDir out;
  Child server({"python3", RTRACE_ATTACH_SERVER_PY}, true, false);
  ASSERT_TRUE(server.read_until("ok\n"));
  AttachedRecorder recorder(server.pid(), out.path());
  ASSERT_TRUE(recorder.attached(server.pid())) << recorder.rest_of_output();
  ASSERT_TRUE(server.command('l'));
  EXPECT_EQ(detach(server.pid()).status, 0);
  EXPECT_EQ(recorder.wait(), 0) << recorder.rest_of_output();
  ASSERT_TRUE(server.command('x'));
  EXPECT_EQ(server.wait(), 7);
  // The bytearray's block (its size and the terminating byte) is among the leaks.
  const std::vector<std::string> leaks = leaks_of(only_trace(out.path()));
  EXPECT_NE(std::find(leaks.begin(), leaks.end(), "malloc(5000001)"), leaks.end())
      << ::testing::PrintToString(leaks);
}

TEST(Attach, TracesFilesAndMemoryWithTwoModules) {
  const ScratchDir out;
  Child server({RTRACE_ATTACH_SERVER}, true, false);
  ASSERT_TRUE(server.read_until("ok\n"));
  AttachedRecorder recorder(server.pid(), out.path(), {"-e", "file:memory"});
  ASSERT_TRUE(recorder.attached(server.pid())) << recorder.rest_of_output();
  ASSERT_TRUE(server.command('p'));
  ASSERT_TRUE(server.command('l'));
  ASSERT_TRUE(server.command('o'));
  EXPECT_EQ(detach(server.pid()).status, 0);
  EXPECT_EQ(recorder.wait(), 0) << recorder.rest_of_output();
  ASSERT_TRUE(server.command('r'));
  ASSERT_TRUE(server.command('x'));
  EXPECT_EQ(server.wait(), 7);
  const std::vector<std::string> leaks = leaks_of(only_trace(out.path()));
  const std::vector<std::string> memory(5, "malloc<memory>(1234)");
  std::vector<std::string> expected(memory);
  expected.insert(
      expected.end(),
      {"open<fd>(1)",
       "# Resource - fd (file descriptor):", "# 1 block(s) leaked with total size of 1 bytes",
       "# Resource - fp (file pointer):", "# 0 block(s) leaked with total size of 0 bytes",
       "# Resource - memory (memory allocation in bytes):",
       "# 5 block(s) leaked with total size of 6170 bytes"});
  EXPECT_EQ(leaks, expected);
}

// ---- what cannot be attached --------------------------------------------------------------------

test::CommandResult attach_command(pid_t pid, const std::string& environment = "") {
  const ScratchDir out;
  return run_command(environment + test::built_tool("rtrace") + " record -p " +
                     std::to_string(pid) + " -o " + quoted(out.path()));
}

TEST(AttachErrors, NoSuchProcess) {
  pid_t gone = 0;
  {
    Child finished({"true"}, false, false);
    gone = finished.pid();
    finished.wait();
  }
  const test::CommandResult result = attach_command(gone);
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(result.err, "rtrace: process " + std::to_string(gone) + ": no such process\n");
}

TEST(AttachErrors, StaticallyLinkedProgram) {
  Child server({RTRACE_ATTACH_SERVER_STATIC}, true, false);
  ASSERT_TRUE(server.read_until("ok\n"));
  const test::CommandResult result = attach_command(server.pid());
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(result.err, "rtrace: process " + std::to_string(server.pid()) +
                            " has no dynamic linker or no C library loaded (statically linked?): "
                            "the tracer can only be loaded into a dynamically linked program\n");
  ASSERT_TRUE(server.command('x'));
  EXPECT_EQ(server.wait(), 7);
}

TEST(AttachErrors, ProcessTracedByAnother) {
  Child server({RTRACE_ATTACH_SERVER}, true, false);
  ASSERT_TRUE(server.read_until("ok\n"));
  ASSERT_EQ(::ptrace(PTRACE_SEIZE, server.pid(), nullptr, nullptr), 0);
  const test::CommandResult result = attach_command(server.pid());
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(result.err, "rtrace: process " + std::to_string(server.pid()) +
                            " is already traced by process " + std::to_string(::getpid()) +
                            " (a debugger or strace): detach it first\n");
}

TEST(AttachErrors, NoPermission) {
  Child server({RTRACE_ATTACH_SERVER}, true, false);
  ASSERT_TRUE(server.read_until("ok\n"));
  // Another user than the server's (root's): neither its maps nor ptrace are allowed.
  const test::CommandResult result =
      run_command("setpriv --reuid=65534 --regid=65534 --clear-groups " +
                  test::built_tool("rtrace") + " record -p " + std::to_string(server.pid()));
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(result.err,
            "rtrace: process " + std::to_string(server.pid()) +
                ": no permission to trace it (ptrace): attach to a process of your own user, or "
                "as root; with the Yama module, /proc/sys/kernel/yama/ptrace_scope must be 0 to "
                "attach to a process that is not your child (as root: sysctl "
                "kernel.yama.ptrace_scope=0; 1 allows it to root only with CAP_SYS_PTRACE, 3 "
                "never)\n");
  ASSERT_TRUE(server.command('x'));
  EXPECT_EQ(server.wait(), 7);
}

TEST(AttachErrors, ProcessExitingDuringTheAttach) {
  Child server({RTRACE_ATTACH_SERVER}, true, false);
  ASSERT_TRUE(server.read_until("ok\n"));
  // A stand-in tracer library whose constructor ends the process.
  const test::CommandResult result =
      attach_command(server.pid(), "RTRACE_LIBDIR=" + quoted(RTRACE_EXITING_LIBDIR) + " ");
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(result.err,
            "rtrace: process " + std::to_string(server.pid()) + " exited during the attach\n");
  EXPECT_EQ(server.wait(), 0);
}

TEST(AttachErrors, DetachingAProcessThatIsNotAttached) {
  Child server({RTRACE_ATTACH_SERVER}, true, false);
  ASSERT_TRUE(server.read_until("ok\n"));
  const test::CommandResult result =
      run_command(test::built_tool("rtrace") + " record -t " + std::to_string(server.pid()));
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(result.err, "rtrace: process " + std::to_string(server.pid()) +
                            " is not traced (start it with rtrace record, or attach to it with "
                            "rtrace record -p)\n");
  ASSERT_TRUE(server.command('x'));
  EXPECT_EQ(server.wait(), 7);
}

}  // namespace
}  // namespace rtrace
