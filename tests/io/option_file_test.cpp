#include "io/option_file.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "support/test_paths.h"

namespace rtrace {
namespace {

using test::ScratchDir;

std::string message_of(const std::string& path, std::size_t max_size = kMaxOptionFile) {
  try {
    read_option_file(path, max_size);
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "(accepted)";
}

TEST(OptionFile, ReadsAWholeFile) {
  const ScratchDir dir;
  test::write_file(dir / "list", "1\n2\n");
  EXPECT_EQ(read_option_file((dir / "list").string()), "1\n2\n");
}

TEST(OptionFile, DirectoryIsAnError) {
  const ScratchDir dir;
  EXPECT_EQ(message_of(dir.path().string()), dir.path().string() + ": is a directory, not a file");
}

TEST(OptionFile, EndlessFileIsRefusedAtTheLimit) {
  EXPECT_EQ(message_of("/dev/zero", 1 << 20),
            "/dev/zero: larger than 1048576 bytes; not a list an option takes");
  EXPECT_EQ(message_of("/dev/zero"),
            "/dev/zero: larger than 67108864 bytes; not a list an option takes");
}

TEST(OptionFile, MissingFileIsNamed) {
  const ScratchDir dir;
  EXPECT_EQ(message_of((dir / "none").string()),
            (dir / "none").string() + ": No such file or directory");
}

}  // namespace
}  // namespace rtrace
