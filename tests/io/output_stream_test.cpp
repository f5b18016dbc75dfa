#include "io/output_stream.h"

#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <thread>

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

std::size_t entries(const std::filesystem::path& dir) {
  return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(dir),
                                                std::filesystem::directory_iterator()));
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode;
}

std::string message_of(const std::string& path, const std::vector<std::string>& inputs = {}) {
  try {
    OutputStream out(path, inputs);
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "(accepted)";
}

// A character device is written into, never replaced by a regular file. As root the test makes
// its own /dev/null twin in the scratch directory (so that the old behaviour, renaming over the
// device, could only ever harm that twin); otherwise it uses /dev/null, which it cannot harm.
TEST(OutputStream, WritesIntoACharacterDeviceInsteadOfReplacingIt) {
  const ScratchDir dir;
  std::string device = (dir / "null").string();
  if (::mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
    device = "/dev/null";
  }
  {
    OutputStream out(device, {});
    out.write(std::string(3 << 20, 'x'));
    out.commit();
  }
  struct stat st {};
  ASSERT_EQ(::stat(device.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(st.st_rdev, makedev(1, 3));
  if (device != "/dev/null") {
    EXPECT_EQ(entries(dir.path()), 1U);
  }
}

TEST(OutputStream, WritesIntoAFifo) {
  const ScratchDir dir;
  const std::string fifo = (dir / "pipe").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = read_file(fifo); });
  {
    OutputStream out(fifo, {});
    out.write("through the pipe\n");
    out.commit();
  }
  reader.join();
  EXPECT_EQ(received, "through the pipe\n");
  EXPECT_TRUE(S_ISFIFO(mode_of(fifo)));
  EXPECT_EQ(entries(dir.path()), 1U);
}

TEST(OutputStream, ReplacingAFileKeepsItsMode) {
  const ScratchDir dir;
  const std::string path = (dir / "private.txt").string();
  test::write_file(path, "old");
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  {
    OutputStream out(path, {});
    out.write("new");
    out.commit();
  }
  EXPECT_EQ(read_file(path), "new");
  EXPECT_EQ(mode_of(path) & 07777, 0600U);

  ASSERT_EQ(::chmod(path.c_str(), 0751), 0);
  OutputStream again(path, {});
  again.commit();
  EXPECT_EQ(mode_of(path) & 07777, 0751U);
}

TEST(OutputStream, RefusesAReadOnlyFile) {
  const ScratchDir dir;
  const std::string path = (dir / "locked.txt").string();
  test::write_file(path, "keep");
  ASSERT_EQ(::chmod(path.c_str(), 0444), 0);
  EXPECT_EQ(message_of(path), path + ": is read-only; refusing to replace it");
  EXPECT_EQ(read_file(path), "keep");
  EXPECT_EQ(entries(dir.path()), 1U);
}

// Root may write anywhere, so as root the check runs in a child that has become `nobody`.
TEST(OutputStream, RefusesAFileTheUserMayNotWriteAsTheShellWould) {
  const ScratchDir dir;
  ASSERT_EQ(::chmod(dir.path().c_str(), 0777), 0);
  const std::string path = (dir / "theirs.txt").string();
  test::write_file(path, "keep");
  ASSERT_EQ(::chmod(path.c_str(), 0464), 0);  // writable for its group only
  const std::string expected =
      path + ": cannot be written (Permission denied); refusing to replace it";
  if (::geteuid() != 0) {
    EXPECT_EQ(message_of(path), expected);
  } else {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      const bool dropped =
          ::setgroups(0, nullptr) == 0 && ::setgid(65534) == 0 && ::setuid(65534) == 0;
      ::_exit(!dropped ? 2 : message_of(path) == expected ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  }
  EXPECT_EQ(read_file(path), "keep");
  EXPECT_EQ(entries(dir.path()), 1U);
}

TEST(OutputStream, FollowsTheUsersOwnSymlinkAndKeepsIt) {
  const ScratchDir dir;
  std::filesystem::create_directory(dir / "real");
  const std::string target = (dir / "real" / "out.txt").string();
  test::write_file(target, "old");
  ASSERT_EQ(::chmod(target.c_str(), 0640), 0);
  std::filesystem::create_symlink("real/out.txt", dir / "link");
  {
    OutputStream out((dir / "link").string(), {});
    out.write("new");
    out.commit();
  }
  EXPECT_TRUE(S_ISLNK(mode_of((dir / "link").string())));
  EXPECT_EQ(read_file(target), "new");
  EXPECT_EQ(mode_of(target) & 07777, 0640U);
  EXPECT_EQ(entries(dir / "real"), 1U);
  EXPECT_EQ(entries(dir.path()), 2U);
}

TEST(OutputStream, RefusesASymlinkToNothing) {
  const ScratchDir dir;
  std::filesystem::create_symlink("missing.txt", dir / "link");
  const std::string link = (dir / "link").string();
  EXPECT_EQ(message_of(link), link +
                                  ": is a symbolic link to a file that does not exist; refusing "
                                  "to create it through the link");
  EXPECT_FALSE(std::filesystem::exists(dir / "missing.txt"));
}

TEST(OutputStream, RefusesASymlinkSomebodyElseOwns) {
  if (::geteuid() != 0) {
    GTEST_SKIP() << "only root can make a link that belongs to another user";
  }
  const ScratchDir dir;
  const std::string target = (dir / "precious").string();
  test::write_file(target, "keep");
  const std::string link = (dir / "planted").string();
  std::filesystem::create_symlink(target, link);
  ASSERT_EQ(::lchown(link.c_str(), 65534, 65534), 0);
  EXPECT_EQ(message_of(link),
            link + ": is a symbolic link owned by another user; refusing to follow it");
  EXPECT_EQ(read_file(target), "keep");
  EXPECT_TRUE(S_ISLNK(mode_of(link)));
}

TEST(OutputStream, RefusesStandardInputAsOutput) {
  const ScratchDir dir;
  const std::string path = (dir / "trace").string();
  test::write_file(path, "input");
  const int saved = ::dup(STDIN_FILENO);
  const int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ::dup2(fd, STDIN_FILENO);
  ::close(fd);
  const std::string message = message_of(path, {"-"});
  ::dup2(saved, STDIN_FILENO);
  ::close(saved);
  EXPECT_EQ(message, path + ": is also an input; refusing to overwrite it");
  EXPECT_EQ(read_file(path), "input");
}

TEST(OutputStream, RefusesADirectory) {
  const ScratchDir dir;
  EXPECT_EQ(message_of(dir.path().string()), dir.path().string() + ": Is a directory");
}

}  // namespace
}  // namespace rtrace
