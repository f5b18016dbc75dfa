#include "support/test_paths.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace rtrace::test {

bool have_fixtures() {
  return std::filesystem::is_directory(RTRACE_FIXTURES_DIR);
}

std::filesystem::path fixture(const std::string& relative) {
  const std::filesystem::path path = std::filesystem::path(RTRACE_FIXTURES_DIR) / relative;
  if (!std::filesystem::exists(path)) {
    ADD_FAILURE() << "fixture missing: " << path;
  }
  return path;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot read " + path.string());
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  if (!out) {
    throw std::runtime_error("cannot write " + path.string());
  }
}

std::filesystem::path build_dir() {
  return RTRACE_BINARY_DIR;
}
std::filesystem::path source_dir() {
  return RTRACE_SOURCE_DIR;
}

std::string quoted(const std::filesystem::path& path) {
  return "'" + path.string() + "'";
}

std::string shell_wait_for_content(const std::filesystem::path& file, const std::string& pid) {
  return "while [ ! -s " + quoted(file) + " ] && kill -0 " + pid +
         " 2>/dev/null; do sleep 0.05; done; ";
}

std::string built_tool(const std::string& name) {
  return quoted(build_dir() / "bin" / name);
}

std::vector<std::filesystem::path> files_in(const std::filesystem::path& directory) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    files.push_back(entry.path());
  }
  return files;
}

ScratchDir::ScratchDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "rtrace-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("mkdtemp failed");
  }
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

CommandResult run_command(const std::string& command) {
  const ScratchDir scratch;
  const std::string out = (scratch / "out").string();
  const std::string err = (scratch / "err").string();
  const std::string full = "(" + command + ") >'" + out + "' 2>'" + err + "'";
  const int raw = std::system(full.c_str());
  CommandResult result;
  result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  result.out = read_file(out);
  result.err = read_file(err);
  return result;
}

}  // namespace rtrace::test
