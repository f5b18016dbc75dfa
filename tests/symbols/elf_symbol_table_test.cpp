#include "symbols/elf_symbol_table.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "support/test_paths.h"

namespace rtrace::symbols {
namespace {

// Function symbols of `program` by name, as nm lists them.
std::map<std::string, std::uint64_t> nm_functions(const std::string& program) {
  const test::CommandResult result = test::run_command("nm --defined-only " + program);
  EXPECT_EQ(result.status, 0) << result.err;
  std::map<std::string, std::uint64_t> functions;
  std::istringstream lines(result.out);
  std::string address;
  std::string type;
  std::string name;
  while (lines >> address >> type >> name) {
    if (type == "T" || type == "t") {
      functions[name] = std::stoull(address, nullptr, 16);
    }
  }
  return functions;
}

class ElfSymbolTableTest : public ::testing::Test {
 protected:
  void open(const char* program) {
    dwfl_ = dwfl_begin(&callbacks_);
    ASSERT_NE(dwfl_, nullptr);
    dwfl_report_begin(dwfl_);
    module_ = dwfl_report_elf(dwfl_, program, program, -1, 0, false);
    dwfl_report_end(dwfl_, nullptr, nullptr);
    ASSERT_NE(module_, nullptr) << dwfl_errmsg(-1);
  }
  void TearDown() override {
    if (dwfl_ != nullptr) {
      dwfl_end(dwfl_);
    }
  }

  Dwfl_Callbacks callbacks_{dwfl_build_id_find_elf, dwfl_standard_find_debuginfo,
                            dwfl_offline_section_address, nullptr};
  Dwfl* dwfl_ = nullptr;
  Dwfl_Module* module_ = nullptr;
};

TEST_F(ElfSymbolTableTest, FindsTheFunctionContainingAnAddress) {
  open(RESOLVE_C_O0);
  const auto functions = nm_functions(RESOLVE_C_O0);
  ASSERT_TRUE(functions.contains("middle") && functions.contains("leaf_static"));
  ElfSymbolTable table(module_, SymbolSource::Fullest);
  EXPECT_GT(table.size(), 5U);
  EXPECT_EQ(table.function_at(functions.at("middle")), "middle()");
  EXPECT_EQ(table.function_at(functions.at("middle") + 5), "middle()");
  EXPECT_EQ(table.function_at(functions.at("leaf_static") + 1), "leaf_static()");
  EXPECT_EQ(table.function_at(functions.at("main")), "main()");
  EXPECT_EQ(table.function_at(0), "");
  EXPECT_EQ(table.function_at(~std::uint64_t{0}), "");
}

TEST_F(ElfSymbolTableTest, DemanglesCxxSymbols) {
  open(RESOLVE_CXX_O0);
  const auto functions = nm_functions(RESOLVE_CXX_O0);
  ASSERT_TRUE(functions.contains("_ZN6shapes6Widget4growEi"));
  ElfSymbolTable table(module_, SymbolSource::Fullest);
  EXPECT_EQ(table.function_at(functions.at("_ZN6shapes6Widget4growEi") + 2),
            "shapes::Widget::grow(int)");
}

TEST_F(ElfSymbolTableTest, StrippedFileWithoutDebugFileHasOnlyDynamicSymbols) {
  open(RESOLVE_C_NOLINK);
  const auto functions = nm_functions(RESOLVE_C_SPLIT);  // same layout, still has symbols
  ElfSymbolTable table(module_, SymbolSource::Fullest);
  EXPECT_EQ(table.function_at(functions.at("leaf_static") + 1), "");
}

}  // namespace
}  // namespace rtrace::symbols
