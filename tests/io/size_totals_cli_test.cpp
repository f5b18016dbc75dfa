// Sizes near 2^64 in a (hostile) text trace: the -l and -c totals saturate at 2^64-1 instead of
// wrapping around to a small number (rtrace-process(1)).
#include <gtest/gtest.h>

#include <string>

#include "support/test_paths.h"

namespace rtrace {
namespace {

using test::run_command;
using test::ScratchDir;

TEST(SizeTotalsCli, TotalsSaturateInsteadOfWrapping) {
  const ScratchDir dir;
  const std::string header =
      "version=2.0, arch=x86_64, timestamp=2026.11.21 11:09:09, process=./big, pid=7";
  test::write_file(dir / "huge.txt", header +
                                         "\n<1> : memory (memory allocation in bytes)\n"
                                         "1. [00:00:01.000] malloc(9223372036854775808) = 0x1000\n"
                                         "\t0x401000\n\n"
                                         "2. [00:00:01.000] malloc(9223372036854775809) = 0x2000\n"
                                         "\t0x401000\n\n");
  const std::string rtrace = (test::build_dir() / "bin" / "rtrace").string();
  const auto r = run_command(rtrace + " process -lc -i '" + (dir / "huge.txt").string() + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, header +
                       ", filter=leaks|compress, origin=rtrace 0.1.0, \n"
                       "<1> : memory (memory allocation in bytes)\n"
                       "1. [00:00:01.000] malloc(9223372036854775808) = 0x1000\n"
                       "2. [00:00:01.000] malloc(9223372036854775809) = 0x2000\n"
                       "# allocation summary: 2 block(s) with total size 18446744073709551615\n"
                       "\t0x401000\n\n"
                       "# Resource - memory (memory allocation in bytes):\n"
                       "# 2 block(s) leaked with total size of 18446744073709551615 bytes\n");
}

}  // namespace
}  // namespace rtrace
