#include "model/string_table.h"

#include <gtest/gtest.h>

#include <string>

namespace rtrace {
namespace {

TEST(StringTable, SameTextSameId) {
  StringTable table;
  const StringId malloc_id = table.intern("malloc");
  const StringId free_id = table.intern("free");
  EXPECT_NE(malloc_id, free_id);
  EXPECT_EQ(table.intern(std::string("mal") + "loc"), malloc_id);
  EXPECT_EQ(table.view(malloc_id), "malloc");
  EXPECT_EQ(table.view(free_id), "free");
  EXPECT_EQ(table.size(), 2U);
}

TEST(StringTable, ViewsStayValidAsTableGrows) {
  StringTable table;
  const std::string_view first = table.view(table.intern("first"));
  for (int i = 0; i < 10000; ++i) {
    table.intern("name" + std::to_string(i));
  }
  EXPECT_EQ(first, "first");
  EXPECT_EQ(table.view(table.intern("name9999")), "name9999");
}

}  // namespace
}  // namespace rtrace
