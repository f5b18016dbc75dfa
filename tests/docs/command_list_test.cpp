// rtrace.1 lists every subcommand of the table `rtrace --help` prints (src/cli/subcommands.cpp):
// an item ".TP / .B NAME" whose text starts with the subcommand's one-line description and which
// refers to the subcommand's own page, which exists. A subcommand added to the table without its
// place in the page fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli/subcommands.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

namespace fs = std::filesystem;

fs::path man_dir() {
  return test::source_dir() / "docs" / "man";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) {
    text.replace(at, from.size(), to);
  }
}

// Roff text as it reads: "\-" is '-', font changes (\fB ... \fR) are dropped.
std::string as_read(std::string text) {
  replace_all(text, "\\-", "-");
  for (const char* font : {"\\fB", "\\fI", "\\fR", "\\fP"}) {
    replace_all(text, font, "");
  }
  return text;
}

// The item of rtrace.1 for `name`: its lines after ".TP" and ".B name", up to the next item,
// paragraph or section. Empty when there is none.
std::vector<std::string> item(const std::vector<std::string>& page, const std::string& name) {
  for (std::size_t i = 1; i < page.size(); ++i) {
    if (page[i - 1] == ".TP" && page[i] == ".B " + name) {
      std::vector<std::string> body;
      for (std::size_t j = i + 1; j < page.size(); ++j) {
        const std::string& line = page[j];
        if (line == ".TP" || line == ".PP" || line.starts_with(".SH")) {
          break;
        }
        body.push_back(line);
      }
      return body;
    }
  }
  return {};
}

TEST(ManPages, RtraceListsEverySubcommandWithItsDescriptionAndPage) {
  const std::vector<std::string> page = lines_of(test::read_file(man_dir() / "rtrace.1"));
  ASSERT_FALSE(rtrace::cli::subcommands().empty());
  for (const rtrace::cli::Subcommand& command : rtrace::cli::subcommands()) {
    const std::string name(command.name);
    const std::vector<std::string> body = item(page, name);
    ASSERT_FALSE(body.empty()) << "rtrace.1 has no item for " << name;
    // The description: the text lines that open the item, joined as they read.
    std::string text;
    for (const std::string& line : body) {
      if (line.starts_with(".")) {
        break;
      }
      text += (text.empty() ? "" : " ") + as_read(line);
    }
    std::string description(command.description);
    std::erase(description, '`');  // `rtrace --help`'s quoting; the page sets the names in bold
    EXPECT_TRUE(text.starts_with(description))
        << name << ": rtrace.1 says\n  " << text << "\nrtrace --help says\n  " << description;
    const std::string page_name = "rtrace-" + name;
    EXPECT_NE(std::find(body.begin(), body.end(), ".BR " + page_name + " (1)."), body.end())
        << name << ": the item does not refer to " << page_name << "(1)";
    EXPECT_TRUE(fs::is_regular_file(man_dir() / (page_name + ".1"))) << page_name;
  }
}

}  // namespace
}  // namespace rtrace
