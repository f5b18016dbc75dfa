// The /proc/PID/maps line reader: the lines the kernel writes (a file, an anonymous mapping, a
// named one, a path with spaces) and what is not such a line. Also checked on this process's own
// maps, where every line must read and the executable's first mapping must be found.
#include "io/proc_maps_line.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace rtrace {
namespace {

TEST(ProcMapsLine, ReadsEveryFieldTheReadersUse) {
  const auto file = parse_proc_maps_line(
      "7f1c2a000000-7f1c2a028000 r--p 00001000 fe:01 1835266                    "
      "/usr/lib/x86_64-linux-gnu/libc.so.6");
  ASSERT_TRUE(file);
  EXPECT_EQ(file->start, 0x7f1c2a000000U);
  EXPECT_EQ(file->end, 0x7f1c2a028000U);
  EXPECT_EQ(file->permissions, "r--p");
  EXPECT_EQ(file->offset, 0x1000U);
  EXPECT_EQ(file->path, "/usr/lib/x86_64-linux-gnu/libc.so.6");

  const auto anonymous = parse_proc_maps_line("7f1c2a200000-7f1c2a210000 rw-p 00000000 00:00 0 ");
  ASSERT_TRUE(anonymous);
  EXPECT_EQ(anonymous->path, "");

  const auto stack =
      parse_proc_maps_line("7ffc8e1d5000-7ffc8e1f6000 rw-p 00000000 00:00 0      [stack]");
  ASSERT_TRUE(stack);
  EXPECT_EQ(stack->path, "[stack]");

  const auto spaces =
      parse_proc_maps_line("1000-2000 r-xp 00000000 08:01 42   /tmp/a dir/lib x.so (deleted)");
  ASSERT_TRUE(spaces);
  EXPECT_EQ(spaces->path, "/tmp/a dir/lib x.so (deleted)");
}

TEST(ProcMapsLine, OtherLinesAreNotMapsLines) {
  for (const char* line : {"", "garbage", "1000 r-xp 0 08:01 1 /x", "zz-2000 r-xp 0 08:01 1 /x",
                           "1000-2000 r-xp offset 08:01 1 /x", "1000-2000"}) {
    EXPECT_FALSE(parse_proc_maps_line(line)) << line;
  }
}

TEST(ProcMapsLine, ReadsThisProcesssOwnMaps) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  int lines = 0;
  bool found_executable = false;
  while (std::getline(maps, line)) {
    const auto parsed = parse_proc_maps_line(line);
    ASSERT_TRUE(parsed) << line;
    EXPECT_LT(parsed->start, parsed->end) << line;
    found_executable =
        found_executable || (parsed->path.ends_with("/io_test") && parsed->offset == 0);
    ++lines;
  }
  EXPECT_GT(lines, 5);
  EXPECT_TRUE(found_executable);
}

}  // namespace
}  // namespace rtrace
