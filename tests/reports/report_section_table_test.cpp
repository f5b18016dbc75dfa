// A section added to the report's section table by one file (test_only_section.cpp, built into
// rtrace_with_test_section only) shows in the text, the JSON and the HTML page of a real report
// of a fixture, after the built-in sections, and the page draws it as a table.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/headless_chromium.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

test::CommandResult report(const std::string& arguments) {
  return test::run_command(std::string(RTRACE_WITH_TEST_SECTION) + " report --no-resolve " +
                           test::quoted(test::fixture("sp-rtrace/memory/memory.raw")) + " " +
                           arguments);
}

TEST(ReportSectionTable, AddedSectionEndsTheTextReport) {
  RTRACE_NEEDS_FIXTURES();
  const test::CommandResult r = report("");
  ASSERT_EQ(r.status, 0) << r.err;
  // The same totals as the report's TOTALS, in the added section's words, after the last
  // built-in section.
  EXPECT_NE(r.out.find("\nALLOCATION SIZES\n"), std::string::npos) << r.out;
  EXPECT_TRUE(r.out.ends_with("\nTEST SECTION\n  memory: 44 calls, 7554 bytes allocated\n"))
      << r.out;
}

TEST(ReportSectionTable, AddedSectionIsTheLastMemberOfTheJson) {
  RTRACE_NEEDS_FIXTURES();
  const test::CommandResult r = report("--json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto document = nlohmann::ordered_json::parse(r.out);
  ASSERT_TRUE(document.contains("test_section")) << r.out;
  EXPECT_EQ(document.back(), nlohmann::ordered_json::parse(
                                 R"([{"type": "memory", "calls": 44, "bytes_allocated": 7554}])"));
  // The built-in members are all still there, in their order.
  EXPECT_EQ(document.begin().key(), "process");
  EXPECT_TRUE(document.contains("diff"));
}

TEST(ReportSectionTable, AddedSectionIsATableOfTheHtmlPage) {
  RTRACE_NEEDS_FIXTURES();
  const test::ScratchDir dir;
  const std::filesystem::path page = dir / "report.html";
  const test::CommandResult r = report("--html " + test::quoted(page));
  ASSERT_EQ(r.status, 0) << r.err;
  const test::BrowserRun run = test::dump_dom(test::file_url(page));
  ASSERT_EQ(run.status, 0) << run.log;
  EXPECT_EQ(test::console_messages(run.log), "");
  EXPECT_NE(run.dom.find("data-rendered=\"true\""), std::string::npos) << run.dom;
  // Linked from the navigation, drawn with its heading, note and one row per type.
  EXPECT_NE(run.dom.find("<a href=\"#test-section\">Test section</a>"), std::string::npos)
      << run.dom;
  const std::size_t section = run.dom.find("<section id=\"test-section\"><h2>Test section</h2>");
  ASSERT_NE(section, std::string::npos) << run.dom;
  const std::string rest = run.dom.substr(section);
  EXPECT_NE(rest.find("Calls and bytes per resource type."), std::string::npos) << rest;
  EXPECT_NE(rest.find("<td data-value=\"memory\">memory</td>"), std::string::npos) << rest;
  EXPECT_NE(rest.find("data-value=\"7554\""), std::string::npos) << rest;
}

}  // namespace
}  // namespace rtrace
