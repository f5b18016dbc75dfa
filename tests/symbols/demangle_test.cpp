#include "symbols/demangle.h"

#include <gtest/gtest.h>

namespace rtrace::symbols {
namespace {

TEST(DisplayFunctionName, CNamesGetEmptyParentheses) {
  EXPECT_EQ(display_function_name("main"), "main()");
  EXPECT_EQ(display_function_name("leaf_malloc_leak"), "leaf_malloc_leak()");
}

TEST(DisplayFunctionName, CxxNamesAreDemangledWithParameters) {
  EXPECT_EQ(display_function_name("_ZN6shapes6Widget4growEi"), "shapes::Widget::grow(int)");
  EXPECT_EQ(display_function_name("_ZNK3Foo3getEv"), "Foo::get() const");
  EXPECT_EQ(display_function_name("_ZN6shapes5twiceIdEET_S1_"),
            "double shapes::twice<double>(double)");
}

TEST(DisplayFunctionName, CompilerMadeCopiesAreTheirFunction) {
  EXPECT_EQ(display_function_name("round_away.cold"), "round_away()");
  EXPECT_EQ(display_function_name("marshal_new_auth.isra.0"), "marshal_new_auth()");
  EXPECT_EQ(display_function_name("_ZN6shapes5twiceIdEET_S1_.isra.0"),
            "double shapes::twice<double>(double)");
}

TEST(DisplayFunctionName, SpecialNamesAndGarbageStayReadable) {
  EXPECT_EQ(display_function_name("_ZTV3Foo"), "vtable for Foo()");
  EXPECT_EQ(display_function_name("_Znot_really"), "_Znot_really()");
  EXPECT_EQ(display_function_name(""), "");
}

}  // namespace
}  // namespace rtrace::symbols
