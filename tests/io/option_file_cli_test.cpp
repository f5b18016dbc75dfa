// Files named by options, through the real commands: a directory or an endless file is an error
// naming it, never an empty list or a memory hog.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/memory_limit.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

using test::fixture;
using test::run_command;
using test::ScratchDir;

std::string rtrace_bin() {
  return (test::build_dir() / "bin" / "rtrace").string();
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
    const auto r = run_command(test::memory_bounded(1000) + rtrace_bin() + " " + c.options);
    EXPECT_EQ(r.status, 1) << c.options;
    EXPECT_EQ(r.out, "") << c.options;
    EXPECT_EQ(r.err, "rtrace: " + c.error + "\n") << c.options;
  }
}

}  // namespace
}  // namespace rtrace
