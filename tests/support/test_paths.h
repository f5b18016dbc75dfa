// Where tests find fixtures, built programs and scratch space.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace rtrace::test {

// Whether ../shared/fixtures (the original tools' traces and outputs) is there. A clone of the
// project alone has no fixtures: the tests that need them skip (CI configures with
// -DRTRACE_REQUIRE_FIXTURES=ON, where a missing fixtures folder stops the configuration).
bool have_fixtures();

// A file under ../shared/fixtures; fails the calling test when it does not exist.
std::filesystem::path fixture(const std::string& relative);
std::string read_file(const std::filesystem::path& path);
void write_file(const std::filesystem::path& path, const std::string& bytes);

// The build directory (for built tools such as bin/rtrace).
std::filesystem::path build_dir();
std::filesystem::path source_dir();
// `path` in single quotes, for run_command (the test paths hold no quote).
std::string quoted(const std::filesystem::path& path);
// The built tool bin/<name>, quoted.
std::string built_tool(const std::string& name);
// The entries of `directory`, in no particular order.
std::vector<std::filesystem::path> files_in(const std::filesystem::path& directory);

// A fresh private directory (mkdtemp, mode 0700) removed when the object goes away.
class ScratchDir {
 public:
  ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir();
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// Runs a shell command; returns its exit status and what it printed on stdout and stderr.
struct CommandResult {
  int status = -1;
  std::string out;
  std::string err;
};
CommandResult run_command(const std::string& command);

// Shell text (ending in "; ") that waits until `file` has content or the process `pid` (a shell
// word such as "$recorder") has ended: an event, not a count of sleeps that a loaded machine can
// outlast.
std::string shell_wait_for_content(const std::filesystem::path& file, const std::string& pid);

}  // namespace rtrace::test

// First statement of a test (or SetUp) that reads the fixtures: skips it, saying why, when the
// fixtures are not there.
#define RTRACE_NEEDS_FIXTURES()                                                      \
  do {                                                                               \
    if (!::rtrace::test::have_fixtures()) {                                          \
      GTEST_SKIP() << "needs the fixtures in ../shared/fixtures beside the project"; \
    }                                                                                \
  } while (false)
