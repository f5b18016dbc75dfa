#include "recorder/module_catalog.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <stdexcept>

#include "support/test_paths.h"

namespace rtrace::recorder {
namespace {

class ModuleCatalog : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name :
         {"librtrace-main.so", "librtrace-memory.so", "librtrace-extra.so", "librtrace-file.so",
          "librtrace-memory.a", "librtrace-context.so", "libother.so", "README"}) {
      test::write_file(dir_ / name, "");
    }
  }
  std::string lib(const std::string& name) const { return (dir_ / name).string(); }

  test::ScratchDir dir_;
};

TEST_F(ModuleCatalog, ListsTheModulesMainFirst) {
  const std::vector<ModuleFile> modules = list_modules(dir_.path().string());
  ASSERT_EQ(modules.size(), 4U);
  EXPECT_EQ(modules[0].alias, "main");
  EXPECT_EQ(modules[1].alias, "extra");
  EXPECT_EQ(modules[1].file, "librtrace-extra.so");
  EXPECT_EQ(modules[1].path, lib("librtrace-extra.so"));
  EXPECT_EQ(modules[1].description, "");  // a module from elsewhere: no description
  EXPECT_EQ(modules[2].alias, "file");
  EXPECT_NE(modules[2].description, "");
  EXPECT_EQ(modules[3].alias, "memory");
  EXPECT_NE(modules[3].description, "");
}

TEST_F(ModuleCatalog, FindsModulesByAliasFileNameOrOriginalName) {
  const std::string dir = dir_.path().string();
  EXPECT_EQ(find_module(dir, "memory"), lib("librtrace-memory.so"));
  EXPECT_EQ(find_module(dir, "librtrace-memory.so"), lib("librtrace-memory.so"));
  EXPECT_EQ(find_module(dir, "libsp-rtrace-memory.so"), lib("librtrace-memory.so"));
  EXPECT_EQ(find_module(dir, lib("libother.so")), lib("libother.so"));
  EXPECT_THROW(find_module(dir, "shmsysv"), std::invalid_argument);
  EXPECT_THROW(find_module(dir, ""), std::invalid_argument);
  EXPECT_THROW(find_module(dir, lib("nothing.so")), std::invalid_argument);
}

TEST_F(ModuleCatalog, PreloadsMainThenTheUsersOrderThenWhatWasThere) {
  const std::string dir = dir_.path().string();
  EXPECT_EQ(preload_value(dir, "", ""), lib("librtrace-main.so"));
  EXPECT_EQ(preload_value(dir, "memory:file:memory:main", "/x/libasan.so"),
            lib("librtrace-main.so") + ":" + lib("librtrace-memory.so") + ":" +
                lib("librtrace-file.so") + ":/x/libasan.so");
  EXPECT_EQ(
      preload_value(dir, "file:memory", ""),
      lib("librtrace-main.so") + ":" + lib("librtrace-file.so") + ":" + lib("librtrace-memory.so"));
}

TEST_F(ModuleCatalog, WithoutTheMainModuleNothingWorks) {
  test::ScratchDir empty;
  EXPECT_THROW(preload_value(empty.path().string(), "memory", ""), std::invalid_argument);
}

TEST_F(ModuleCatalog, LibdirFromTheEnvironment) {
  ::setenv("RTRACE_LIBDIR", "/some/where", 1);
  EXPECT_EQ(module_directory(), "/some/where");
  ::unsetenv("RTRACE_LIBDIR");
  EXPECT_TRUE(module_directory().ends_with("/lib"));
}

}  // namespace
}  // namespace rtrace::recorder
