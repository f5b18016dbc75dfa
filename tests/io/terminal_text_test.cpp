#include "io/terminal_text.h"

#include <gtest/gtest.h>

#include <string>

namespace rtrace {
namespace {

TEST(TerminalText, ControlCharactersAreEscaped) {
  EXPECT_EQ(terminal_safe("\x1b]0;title\x07"), "\\x1b]0;title\\x07");
  EXPECT_EQ(terminal_safe("a\nb\rc\x7f"), "a\\x0ab\\x0dc\\x7f");
  EXPECT_EQ(terminal_safe_lines("a\nb\x1b[2J\n"), "a\nb\\x1b[2J\n");
  // C1 controls: as UTF-8 (U+009B) and as a lone byte (0x9b, CSI in an 8-bit terminal).
  EXPECT_EQ(terminal_safe("\xc2\x9b"
                          "2J \x9b"
                          "2J"),
            "\\xc2\\x9b2J \\x9b2J");
  EXPECT_TRUE(needs_terminal_escape("x\x1b"));
}

TEST(TerminalText, PrintableTextIsUnchanged) {
  for (const std::string text : {"", "main() at deep.cpp:20", "tab\there", "caf\xc3\xa9",
                                 "\xc4\x81\xe2\x82\xac", "Latin-1 caf\xe9", "\xf0\x9f\x98\x80"}) {
    EXPECT_EQ(terminal_safe(text), text);
    EXPECT_FALSE(needs_terminal_escape(text)) << text;
  }
}

}  // namespace
}  // namespace rtrace
