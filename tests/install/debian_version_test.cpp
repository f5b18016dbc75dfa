// The Debian package's version (the first entry of debian/changelog, a native package: no
// Debian revision) is the version CMakeLists.txt declares and the built rtrace prints, so that
// a package never says one version while its commands say another.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "support/test_paths.h"

namespace rtrace {
namespace {

// "rtrace (VERSION) DISTRIBUTION; urgency=...": the version of the changelog's newest entry.
std::string changelog_version(const std::string& changelog) {
  std::smatch match;
  const std::string first_line = changelog.substr(0, changelog.find('\n'));
  if (!std::regex_match(first_line, match, std::regex(R"(rtrace \(([^)]+)\) \S+; urgency=\S+)"))) {
    ADD_FAILURE() << "debian/changelog: line 1 is not an entry heading: " << first_line;
    return {};
  }
  return match[1].str();
}

TEST(DebianPackage, ChangelogVersionIsTheCommandsVersion) {
  const std::string version =
      changelog_version(test::read_file(test::source_dir() / "debian" / "changelog"));
  ASSERT_EQ(version, RTRACE_PROJECT_VERSION);
  const test::CommandResult printed = test::run_command(test::built_tool("rtrace") + " --version");
  ASSERT_EQ(printed.status, 0) << printed.err;
  EXPECT_TRUE(printed.out.starts_with("rtrace " + version + " (commit ")) << printed.out;
}

}  // namespace
}  // namespace rtrace
