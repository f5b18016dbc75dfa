#include "io/output_stream.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "support/test_paths.h"

namespace rtrace {
namespace {

using test::read_file;
using test::ScratchDir;

TEST(OutputStream, FileAppearsOnlyOnCommit) {
  const ScratchDir dir;
  const std::string path = (dir / "out.txt").string();
  {
    OutputStream out(path, {});
    out.write("hello\n");
    out.flush();
    EXPECT_FALSE(std::filesystem::exists(path));
    out.commit();
  }
  EXPECT_EQ(read_file(path), "hello\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator()),
            1);
}

TEST(OutputStream, AbandonedOutputLeavesTheOldFileAlone) {
  const ScratchDir dir;
  const std::string path = (dir / "out.txt").string();
  test::write_file(path, "precious");
  {
    OutputStream out(path, {});
    out.write("half");
  }
  EXPECT_EQ(read_file(path), "precious");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator()),
            1);
}

TEST(OutputStream, RefusesToOverwriteAnInput) {
  const ScratchDir dir;
  const std::string path = (dir / "trace").string();
  test::write_file(path, "input");
  std::filesystem::create_symlink(path, dir / "alias");
  EXPECT_THROW(OutputStream((dir / "alias").string(), {path}), std::runtime_error);
  EXPECT_EQ(read_file(path), "input");
}

TEST(OutputStream, NumberedFilesNeverReplaceExistingOnes) {
  const ScratchDir dir;
  test::write_file(dir / "42-0.rtrace.txt", "older");
  std::string first;
  {
    OutputStream out = OutputStream::in_directory(dir.path().string());
    out.write("new");
    first = out.commit_numbered("42-", ".rtrace.txt");
  }
  EXPECT_EQ(first, (dir / "42-1.rtrace.txt").string());
  EXPECT_EQ(read_file(dir / "42-0.rtrace.txt"), "older");
  EXPECT_EQ(read_file(first), "new");
}

}  // namespace
}  // namespace rtrace
