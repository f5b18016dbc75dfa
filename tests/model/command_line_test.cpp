#include "model/command_line.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rtrace {
namespace {

TEST(CommandLine, QuotesOnlyWhatAShellWouldTakeApart) {
  const std::vector<std::string> arguments = {"./prog", "--port=8080", "two words",   "it's",
                                              "",       "a\tb\x1b[m",  "back\\slash", "$HOME"};
  EXPECT_EQ(quote_command_line(arguments),
            "./prog --port=8080 'two words' 'it'\\''s' '' $'a\\x09b\\x1b[m' 'back\\slash' '$HOME'");
}

TEST(CommandLine, ReadsBackExactlyWhatItWrote) {
  const std::vector<std::vector<std::string>> cases = {
      {},
      {""},
      {"a"},
      {"x y", "'", "''", "\\", "\\'", "\x01\x7f", "caf\xc3\xa9", " lead", "trail "},
  };
  for (const auto& arguments : cases) {
    const std::string line = quote_command_line(arguments);
    EXPECT_EQ(parse_command_line(line), arguments) << line;
  }
}

TEST(CommandLine, RefusesBrokenQuoting) {
  EXPECT_EQ(parse_command_line("a 'open"), std::nullopt);
  EXPECT_EQ(parse_command_line("$'\\q'"), std::nullopt);
  EXPECT_EQ(parse_command_line("$'\\x4"), std::nullopt);
}

}  // namespace
}  // namespace rtrace
