// The one JSON string quoting rule: escapes what JSON requires, keeps valid UTF-8, and turns
// every other byte into a code point, so that a trace's names never make invalid JSON.
#include "io/json_string.h"

#include <gtest/gtest.h>

#include <string>

namespace rtrace {
namespace {

TEST(JsonString, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(json_string("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(json_string("line\nnext\ttab"), R"("line\nnext\ttab")");
  EXPECT_EQ(json_string(std::string("\x01\x1f", 2)), R"("\u0001\u001f")");
  EXPECT_EQ(json_string(std::string("a\0b", 3)), R"("a\u0000b")");
  EXPECT_EQ(json_string(""), R"("")");
}

TEST(JsonString, KeepsValidUtf8) {
  EXPECT_EQ(json_string("caf\xc3\xa9"), "\"caf\xc3\xa9\"");            // 2 bytes
  EXPECT_EQ(json_string("\xe2\x82\xac"), "\"\xe2\x82\xac\"");          // 3 bytes: euro sign
  EXPECT_EQ(json_string("\xf0\x9f\x98\x80"), "\"\xf0\x9f\x98\x80\"");  // 4 bytes
}

TEST(JsonString, WritesBytesOutsideUtf8AsCodePoints) {
  EXPECT_EQ(json_string("\xff"), R"("\u00ff")");                      // never valid
  EXPECT_EQ(json_string("\x80x"), R"("\u0080x")");                    // stray continuation byte
  EXPECT_EQ(json_string("\xc3"), R"("\u00c3")");                      // sequence cut short
  EXPECT_EQ(json_string("\xc0\xaf"), R"("\u00c0\u00af")");            // overlong '/'
  EXPECT_EQ(json_string("\xed\xa0\x80"), R"("\u00ed\u00a0\u0080")");  // a surrogate
  EXPECT_EQ(json_string("\xf4\x90\x80\x80"), R"("\u00f4\u0090\u0080\u0080")");  // > U+10FFFF
}

}  // namespace
}  // namespace rtrace
