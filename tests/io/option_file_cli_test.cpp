// Files named by options, through the real commands: a directory or an endless file is an error
// naming it, never an empty list or a memory hog.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/test_paths.h"

namespace rtrace {
namespace {

using test::fixture;
using test::run_command;
using test::ScratchDir;

std::string rtrace_bin() {
  return (test::build_dir() / "bin" / "rtrace").string();
}

// The bound a command runs under here, so that reading an endless list fails the test instead of
// the machine: 1 GB of address space; under AddressSanitizer, whose shadow memory alone takes
// terabytes of address space, 1 GB of resident memory (its own limit) instead.
std::string memory_bound() {
#ifdef __SANITIZE_ADDRESS__
  return "ASAN_OPTIONS=\"$ASAN_OPTIONS:hard_rss_limit_mb=1000\" ";
#else
  return "ulimit -v 1000000; ";
#endif
}

TEST(OptionFileCli, DirectoryOrEndlessListIsAnErrorNamingIt) {
  const ScratchDir dir;
  const std::string raw = fixture("sp-rtrace/memory/memory.raw").string();
  const std::string folder = dir.path().string();
  struct Case {
    std::string options;
    std::string error;
  };
  const Case cases[] = {
      {"process --include " + folder + " -i " + raw, folder + ": is a directory, not a file"},
      {"process --exclude " + folder + " -i " + raw, folder + ": is a directory, not a file"},
      {"process --include /dev/zero -i " + raw,
       "/dev/zero: larger than 67108864 bytes; not a list an option takes"},
      {"report --suppressions " + folder + " -i " + raw, folder + ": is a directory, not a file"},
      {"report --suppressions /dev/zero -i " + raw,
       "/dev/zero: larger than 67108864 bytes; not a list an option takes"},
  };
  for (const Case& c : cases) {
    const auto r = run_command(memory_bound() + rtrace_bin() + " " + c.options);
    EXPECT_EQ(r.status, 1) << c.options;
    EXPECT_EQ(r.out, "") << c.options;
    EXPECT_EQ(r.err, "rtrace: " + c.error + "\n") << c.options;
  }
}

}  // namespace
}  // namespace rtrace
