// `rtrace report --html` and the flame graph SVG in a real browser: a program of ours is
// recorded, reported on, and the page opened in headless Chromium. The DOM after the page's
// scripts ran must hold the timeline, the flame graph and the tables with the report's figures,
// the browser must log no console message, and the URL fragment must drive the flame graph's
// weight, search and zoom (in the HTML page and in the SVG export alike).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/headless_chromium.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

std::string rtrace() {
  return (test::build_dir() / "bin" / "rtrace").string();
}
std::string quoted(const std::filesystem::path& path) {
  return "'" + path.string() + "'";
}

// The opening tag of the first element whose tag contains `attribute` (e.g. data-name="main"),
// or "" when there is none.
std::string tag_with(const std::string& dom, const std::string& attribute) {
  const std::size_t at = dom.find(attribute);
  if (at == std::string::npos) {
    return "";
  }
  const std::size_t open = dom.rfind('<', at);
  return dom.substr(open, dom.find('>', at) - open + 1);
}
// The text of the first element with this id (no nested elements).
std::string text_of(const std::string& dom, const std::string& id) {
  const std::size_t at = dom.find("id=\"" + id + "\"");
  if (at == std::string::npos) {
    return "<no element " + id + ">";
  }
  const std::size_t start = dom.find('>', at) + 1;
  return dom.substr(start, dom.find('<', start) - start);
}
std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++count;
  }
  return count;
}
std::uint64_t figure(const std::string& text, const std::string& pattern) {
  std::smatch match;
  EXPECT_TRUE(std::regex_search(text, match, std::regex(pattern))) << pattern << "\n" << text;
  return match.empty() ? 0 : std::stoull(match[1].str());
}
// The sum of the folded lines whose stack contains `frame`.
std::uint64_t folded_under(const std::string& folded, const std::string& frame) {
  std::uint64_t total = 0;
  std::size_t start = 0;
  while (start < folded.size()) {
    const std::size_t end = folded.find('\n', start);
    const std::string line = folded.substr(start, end - start);
    const std::size_t space = line.rfind(' ');
    const std::string stack = ";" + line.substr(0, space) + ";";
    if (frame.empty() || stack.find(";" + frame + ";") != std::string::npos) {
      total += std::stoull(line.substr(space + 1));
    }
    start = end + 1;
  }
  return total;
}
std::string percent(std::uint64_t part, std::uint64_t whole) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%",
                100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return text;
}

// One recording of examples/leaky (leaky.c) for every test, with its HTML report, its text
// report and its folded stacks.
class HtmlReportBrowser : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<test::ScratchDir>();
    const std::string leaky = (test::build_dir() / "examples" / "leaky").string();
    const test::CommandResult recorded = test::run_command(
        rtrace() + " record -q -s -e memory -o " + quoted(dir_->path()) + " -x " + leaky);
    ASSERT_EQ(recorded.status, 0) << recorded.err;
    trace_ = std::filesystem::directory_iterator(dir_->path())->path();
    const test::CommandResult html =
        test::run_command(rtrace() + " report --html " + quoted(page()) + " " + quoted(trace_));
    ASSERT_EQ(html.status, 0) << html.err;
    EXPECT_EQ(html.out, "");
    const test::CommandResult text = test::run_command(rtrace() + " report " + quoted(trace_));
    ASSERT_EQ(text.status, 0) << text.err;
    text_ = text.out;
    const test::CommandResult folded =
        test::run_command(rtrace() + " export folded -w allocated -i " + quoted(trace_));
    ASSERT_EQ(folded.status, 0) << folded.err;
    folded_ = folded.out;
  }
  static void TearDownTestSuite() { dir_.reset(); }

  static std::filesystem::path page() { return dir_->path() / "report.html"; }

  // The page's DOM with `fragment`, checking that it rendered without a single console message
  // or page error.
  static std::string rendered(const std::string& fragment) {
    const test::BrowserRun run = test::dump_dom(test::file_url(page(), fragment));
    EXPECT_EQ(run.status, 0) << run.log;
    EXPECT_EQ(test::console_messages(run.log), "") << fragment;
    EXPECT_NE(run.dom.find("<body data-rendered=\"true\" data-render-ms=\""), std::string::npos)
        << run.dom;
    EXPECT_EQ(tag_with(run.dom, "id=\"errors\""), "<pre id=\"errors\" hidden=\"\">")
        << text_of(run.dom, "errors");
    return run.dom;
  }

  static inline std::unique_ptr<test::ScratchDir> dir_;
  static inline std::filesystem::path trace_;
  static inline std::string text_;
  static inline std::string folded_;
};

// One file, nothing fetched: no external script, style, image or link.
TEST_F(HtmlReportBrowser, PageIsSelfContained) {
  const std::string html = test::read_file(page());
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>\n")) << html.substr(0, 100);
  EXPECT_EQ(count_of(html, "</script>"), 2U);  // the data and the script, both inline
  EXPECT_EQ(count_of(html, " src="), 0U);
  EXPECT_EQ(count_of(html, "<link"), 0U);
  EXPECT_EQ(count_of(html, "@import"), 0U);
  EXPECT_EQ(count_of(html, "url("), 0U);
  // The only URL is the SVG namespace the script creates its charts in.
  EXPECT_EQ(count_of(html, "http://") + count_of(html, "https://"),
            count_of(html, "\"http://www.w3.org/2000/svg\""));
}

TEST_F(HtmlReportBrowser, TimelineFlameGraphAndTablesRenderWithTheReportsFigures) {
  const std::string dom = rendered("");
  // Summary: the text report's totals (leaky.c: 9500 bytes leaked in 7 blocks).
  const std::uint64_t allocations = figure(text_, R"((\d+) allocations of \d+ bytes)");
  const std::uint64_t peak = figure(text_, R"(memory: (\d+) bytes alive after call)");
  const std::uint64_t peak_call = figure(text_, R"(memory: \d+ bytes alive after call (\d+))");
  EXPECT_NE(dom.find("data-value=\"" + std::to_string(allocations) + "\""), std::string::npos);
  EXPECT_NE(dom.find("<td data-value=\"9500\" class=\"number\" title=\"9500\">9.3 KiB</td>"),
            std::string::npos);
  EXPECT_EQ(peak, 9500U);  // leaky.c leaks everything alive at its last call
  // Timeline: a chart of bytes and one of blocks for memory, a line with points, the peak dot.
  EXPECT_NE(dom.find("<figure class=\"timeline\" data-type=\"memory\"><figcaption>memory: peak "
                     "9.3 KiB in 7 blocks at call " +
                     std::to_string(peak_call)),
            std::string::npos)
      << dom;
  EXPECT_EQ(count_of(dom, "<svg class=\"chart\""), 2U);
  EXPECT_EQ(count_of(dom, "<circle class=\"peak\""), 2U);
  const std::string line = tag_with(dom, "class=\"line\"");
  EXPECT_GT(count_of(line, "H"), 20U) << line;  // a step per change of the live bytes
  // Flame graph: leaked bytes by default, the program's functions resolved.
  const std::string flame = tag_with(dom, "id=\"flame\"");
  EXPECT_NE(flame.find("data-weight=\"leaked\""), std::string::npos) << flame;
  for (const std::string name : {"all", "main", "grow_log", "document_open", "strdup", "printf"}) {
    EXPECT_NE(tag_with(dom, "data-name=\"" + name + "\""), "") << name;
  }
  EXPECT_NE(dom.find("data-name=\"grow_log\" title=\"grow_log\n1.3 KiB (13.47% of all)\""),
            std::string::npos);
  // Tables: the leak sites with their resolved frames; the size histogram.
  EXPECT_NE(dom.find("grow_log() at leaky.c:34</li>"), std::string::npos);
  EXPECT_NE(dom.find("document_open() at leaky.c:19</li>"), std::string::npos);
  EXPECT_NE(dom.find("<table class=\"histogram\" data-type=\"memory\">"), std::string::npos);
  EXPECT_NE(dom.find("<th>4.0 KiB – 8.0 KiB</th><td class=\"number\">2</td>"), std::string::npos)
      << dom;
}

// The fragment switches the weight, searches and zooms: the zoomed frame's callers stay on top
// (dimmed), the other branches go, the matches are marked and their share shown.
TEST_F(HtmlReportBrowser, FlameGraphSearchAndZoomFromTheFragment) {
  const std::string dom = rendered("#weight=allocated&search=%5Edocument_open%24&zoom=main");
  const std::string flame = tag_with(dom, "id=\"flame\"");
  EXPECT_NE(flame.find("data-weight=\"allocated\" data-zoom=\"main\""), std::string::npos) << flame;
  EXPECT_NE(tag_with(dom, "data-name=\"_start\"").find("class=\"frame ancestor\""),
            std::string::npos);
  EXPECT_NE(tag_with(dom, "data-name=\"document_open\"").find("class=\"frame match\""),
            std::string::npos);
  EXPECT_NE(tag_with(dom, "data-name=\"main\"").find("left:0.0000%;width:100.0000%"),
            std::string::npos);
  const std::uint64_t under_main = folded_under(folded_, "main");
  EXPECT_EQ(text_of(dom, "flame-matched"),
            "Matched: " + percent(folded_under(folded_, "document_open"), under_main));
  EXPECT_NE(dom.find("allocated\" aria-pressed=\"true\""), std::string::npos);

  // Deeper: only grow_log's branch is left under its callers.
  const std::string grow = rendered("#weight=count&zoom=grow_log");
  EXPECT_EQ(tag_with(grow, "data-name=\"document_open\""), "");
  EXPECT_EQ(tag_with(grow, "data-name=\"printf\""), "");
  EXPECT_NE(tag_with(grow, "data-name=\"main\"").find("class=\"frame ancestor\""),
            std::string::npos);
  EXPECT_NE(grow.find("data-name=\"grow_log\" title=\"grow_log\n20 allocations"),
            std::string::npos);
}

// A header click's sort, driven by the fragment: the leaks by allocation count, largest first.
TEST_F(HtmlReportBrowser, TablesSortByAColumn) {
  const std::string dom = rendered("#sort=leaks.3");
  const std::size_t leaks = dom.find("<section id=\"leaks\">");
  ASSERT_NE(leaks, std::string::npos);
  const std::string table = dom.substr(leaks, dom.find("</section>", leaks) - leaks);
  EXPECT_NE(table.find("<th data-kind=\"count\" title=\"Sort by allocations\" "
                       "aria-sort=\"descending\">"),
            std::string::npos)
      << table;
  std::vector<std::uint64_t> counts;
  const std::regex row(
      R"re(<tr><td data-value="memory">memory</td>(?:<td[^>]*>[^<]*</td>){2}<td data-value="(\d+)")re");
  for (auto m = std::sregex_iterator(table.begin(), table.end(), row); m != std::sregex_iterator();
       ++m) {
    counts.push_back(std::stoull((*m)[1].str()));
  }
  ASSERT_EQ(counts.size(), 3U) << table;  // stdout's buffer is a suppressed runtime block
  EXPECT_TRUE(std::is_sorted(counts.rbegin(), counts.rend())) << table;
  EXPECT_EQ(counts.front(), 20U);  // the strdup'd titles and the log
}

TEST_F(HtmlReportBrowser, DiffShowsTheGrowthPerBacktrace) {
  // The baseline: the first 60 calls of the same trace.
  std::string first_calls;
  for (int i = 1; i <= 60; ++i) {
    first_calls += std::to_string(i) + "\n";
  }
  test::write_file(dir_->path() / "first-calls", first_calls);
  const std::filesystem::path baseline = dir_->path() / "baseline.txt";
  const test::CommandResult cut =
      test::run_command(rtrace() + " process --include " + quoted(dir_->path() / "first-calls") +
                        " -i " + quoted(trace_) + " -o " + quoted(baseline));
  ASSERT_EQ(cut.status, 0) << cut.err;
  const std::filesystem::path diff_page = dir_->path() / "diff.html";
  const test::CommandResult r =
      test::run_command(rtrace() + " report --html " + quoted(diff_page) + " --diff " +
                        quoted(baseline) + " " + quoted(trace_));
  ASSERT_EQ(r.status, 0) << r.err;
  const test::BrowserRun run = test::dump_dom(test::file_url(diff_page));
  EXPECT_EQ(test::console_messages(run.log), "");
  const std::size_t diff = run.dom.find("<section id=\"diff\">");
  ASSERT_NE(diff, std::string::npos) << run.dom;
  const std::string section = run.dom.substr(diff);
  EXPECT_NE(section.find("<table class=\"sortable diff-sites\">"), std::string::npos);
  EXPECT_NE(section.find("main() at leaky.c:44</li>"), std::string::npos);  // the scratch block
  EXPECT_NE(section.find("<td data-value=\"4096\" class=\"number\" title=\"4096\">+4.0 KiB</td>"),
            std::string::npos)
      << section;
}

// The standalone SVG flame graph honours the same fragment: its frames outside the zoomed one
// are hidden, its matches filled and their share printed.
TEST_F(HtmlReportBrowser, FlameGraphSvgSearchAndZoomFromTheFragment) {
  const std::filesystem::path svg = dir_->path() / "flame.svg";
  const test::CommandResult r = test::run_command(rtrace() + " export flamegraph -w allocated -i " +
                                                  quoted(trace_) + " -o " + quoted(svg));
  ASSERT_EQ(r.status, 0) << r.err;
  const test::BrowserRun run =
      test::dump_dom(test::file_url(svg, "#search=%5Edocument_open%24&zoom=grow_log"));
  ASSERT_EQ(run.status, 0) << run.log;
  EXPECT_EQ(test::console_messages(run.log), "");
  EXPECT_NE(tag_with(run.dom, "data-n=\"document_open\"").find("style=\"display: none;\""),
            std::string::npos)
      << tag_with(run.dom, "data-n=\"document_open\"");
  EXPECT_EQ(tag_with(run.dom, "data-n=\"grow_log\"").find("display: none"), std::string::npos);
  EXPECT_NE(tag_with(run.dom, "data-n=\"main\"").find("opacity: 0.5"), std::string::npos);
  EXPECT_EQ(
      text_of(run.dom, "matched"),
      "Matched: " + percent(folded_under(folded_, "document_open"), folded_under(folded_, "")));
  EXPECT_EQ(tag_with(run.dom, "id=\"reset\""),
            "<text id=\"reset\" class=\"button\" x=\"10\" y=\"42\" style=\"opacity: 1;\">");
}

// A PNG of the page as the browser draws it (the README's screenshot is made the same way).
TEST_F(HtmlReportBrowser, ScreenshotIsAPngOfTheWindow) {
  const std::filesystem::path png = dir_->path() / "report.png";
  const test::BrowserRun run = test::screenshot(test::file_url(page()), png, 1280, 1600);
  ASSERT_EQ(run.status, 0) << run.log;
  EXPECT_EQ(test::console_messages(run.log), "");
  const std::string bytes = test::read_file(png);
  ASSERT_GT(bytes.size(), 24U);
  EXPECT_EQ(bytes.substr(0, 8), "\x89PNG\r\n\x1a\n");
  const auto big_endian = [&](std::size_t at) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at])) << 24 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + 1])) << 16 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + 2])) << 8 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + 3]));
  };
  EXPECT_EQ(bytes.substr(12, 4), "IHDR");
  EXPECT_EQ(big_endian(16), 1280U);
  EXPECT_EQ(big_endian(20), 1600U);
  EXPECT_GT(bytes.size(), 50'000U);  // charts and text, not a blank page
}

// ---- the pagemap module's PAGES section ------------------------------------------------------

// The row of `range` in the text report's PAGES section, split into its columns: mapping, mode,
// size, pages, resident, all-zero, path.
std::vector<std::string> text_pages_row(const std::string& report, const std::string& range) {
  static const std::regex row(R"(^  (\S+) (\S+) +(\S+ \S+) +(\d+) +(\d+) +(\S+)  (.*)$)");
  std::istringstream lines(report.substr(report.find("\nPAGES (")));
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_match(line, m, row) && m[1].str() == range) {
      return {m[1], m[2], m[3], m[4], m[5], m[6], m[7]};
    }
  }
  return {};
}

// A numeric cell as the page writes it: the exact value in data-value and the title.
std::string number_cell(const std::string& value) {
  return "<td data-value=\"" + value + "\" class=\"number\" title=\"" + value + "\">";
}

// A program whose block of 256 pages is half written, a quarter zeroed and a quarter untouched
// (tests/tracer/programs/pagemap_block.c: its mapping has 257 pages, 193 resident, 64 all-zero),
// recorded with the pagemap module: the page shows the PAGES section of the text report, row by
// row, and says nothing of it for a trace without the module's attachments.
TEST(HtmlReportPages, ThePagesSectionShowsTheTextReportsMappings) {
  const test::ScratchDir dir;
  const test::CommandResult recorded =
      test::run_command(rtrace() + " record -q -e memory:pagemap -o " + quoted(dir.path()) +
                        " -x " + quoted(RTRACE_PAGEMAP_PROGRAM));
  ASSERT_EQ(recorded.status, 0) << recorded.err;
  std::smatch printed;
  ASSERT_TRUE(std::regex_search(recorded.out, printed,
                                std::regex(R"(mapping=([0-9a-f]+)-([0-9a-f]+) page=(\d+))")));
  const auto padded = [](const std::string& hex) {
    return std::string(16 - hex.size(), '0') + hex;
  };
  const std::string range = padded(printed[1]) + "-" + padded(printed[2]);
  std::filesystem::path trace;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    if (entry.path().extension() == ".rtrace") {
      trace = entry.path();
    }
  }
  const std::filesystem::path page = dir.path() / "pages.html";
  const test::CommandResult html =
      test::run_command(rtrace() + " report --html " + quoted(page) + " " + quoted(trace));
  ASSERT_EQ(html.status, 0) << html.err;
  const test::CommandResult text = test::run_command(rtrace() + " report " + quoted(trace));
  ASSERT_EQ(text.status, 0) << text.err;
  const std::vector<std::string> block = text_pages_row(text.out, range);
  ASSERT_EQ(block.size(), 7U) << text.out;
  EXPECT_EQ(block[3] + " " + block[4] + " " + block[5], "257 193 64");

  const test::BrowserRun run = test::dump_dom(test::file_url(page));
  ASSERT_EQ(run.status, 0) << run.log;
  EXPECT_EQ(test::console_messages(run.log), "");
  EXPECT_EQ(tag_with(run.dom, "id=\"errors\""), "<pre id=\"errors\" hidden=\"\">");
  const std::size_t section = run.dom.find("<section id=\"pages\"><h2>Pages</h2>");
  ASSERT_NE(section, std::string::npos) << run.dom;
  EXPECT_NE(run.dom.find("<a href=\"#pages\">Pages</a>"), std::string::npos);
  // Every mapping of the text report, with the same figures, in the same order.
  static const std::regex text_row(R"(\n  ([0-9a-f]{16}-[0-9a-f]{16}) )");
  std::size_t previous = section;
  std::size_t rows = 0;
  const std::string pages_text = text.out.substr(text.out.find("\nPAGES ("));
  for (std::sregex_iterator it(pages_text.begin(), pages_text.end(), text_row), end; it != end;
       ++it, ++rows) {
    const std::vector<std::string> columns = text_pages_row(text.out, (*it)[1].str());
    ASSERT_EQ(columns.size(), 7U);
    const std::size_t at =
        run.dom.find("<tr><td data-value=\"" + columns[0] + "\">" + columns[0] + "</td>");
    ASSERT_NE(at, std::string::npos) << columns[0];
    EXPECT_GT(at, previous) << columns[0];
    previous = at;
    const std::string dom_row = run.dom.substr(at, run.dom.find("</tr>", at) - at);
    const std::string& path = columns[6];
    const auto text_cell = [](const std::string& text) {
      return fmt::format("<td data-value=\"{}\">{}</td>", text, text);
    };
    std::size_t cursor = 0;
    for (const std::string& expected :
         {text_cell(columns[1]), number_cell(columns[3]), number_cell(columns[4]),
          columns[5] == "?" ? std::string("<td title=\"not known\" data-value=\"-1\">?</td>")
                            : number_cell(columns[5]),
          text_cell(path)}) {
      const std::size_t found = dom_row.find(expected, cursor);
      EXPECT_NE(found, std::string::npos) << expected << "\n" << dom_row;
      cursor = found == std::string::npos ? cursor : found;
    }
  }
  EXPECT_GE(rows, 2U);  // the block, the heap, the stack, libraries' data...
  EXPECT_EQ(count_of(run.dom.substr(section), "<tr><td data-value=\""), rows);
  // The totals as figures: the block alone has 64 all-zero pages.
  EXPECT_NE(run.dom.find("<div class=\"figure-label\">all-zero</div>", section), std::string::npos);

  // Without the module: no section, no link.
  const test::ScratchDir plain;
  ASSERT_EQ(test::run_command(rtrace() + " record -q -e memory -o " + quoted(plain.path()) +
                              " -x " + quoted(RTRACE_PAGEMAP_PROGRAM))
                .status,
            0);
  const std::filesystem::path plain_page = plain.path() / "plain.html";
  ASSERT_EQ(test::run_command(rtrace() + " report --html " + quoted(plain_page) + " " +
                              quoted(std::filesystem::directory_iterator(plain.path())->path()))
                .status,
            0);
  const test::BrowserRun without = test::dump_dom(test::file_url(plain_page));
  ASSERT_EQ(without.status, 0) << without.log;
  EXPECT_EQ(test::console_messages(without.log), "");
  EXPECT_NE(without.dom.find("<section id=\"summary\">"), std::string::npos);
  EXPECT_EQ(without.dom.find("id=\"pages\""), std::string::npos);
}

// The memtransfer module's copies hold nothing: the page shows what they moved, no leak or peak
// figure and no timeline of live bytes, its flame graph weighs the bytes moved, and the peak and
// temporary tables stay empty.
TEST(HtmlReportTransfers, TransfersShowWhatMovedNotWhatIsHeld) {
  const test::ScratchDir dir;
  const test::CommandResult recorded =
      test::run_command(rtrace() + " record -q -e memtransfer -o " + quoted(dir.path()) + " -x " +
                        quoted(RTRACE_MEMTRANSFER_PROGRAM));
  ASSERT_EQ(recorded.status, 0) << recorded.err;
  const std::filesystem::path trace = std::filesystem::directory_iterator(dir.path())->path();
  const std::filesystem::path page = dir.path() / "transfers.html";
  const test::CommandResult html = test::run_command(rtrace() + " report --no-resolve --html " +
                                                     quoted(page) + " " + quoted(trace));
  ASSERT_EQ(html.status, 0) << html.err;

  const test::BrowserRun run = test::dump_dom(test::file_url(page));
  ASSERT_EQ(run.status, 0) << run.log;
  EXPECT_EQ(test::console_messages(run.log), "");
  EXPECT_EQ(tag_with(run.dom, "id=\"errors\""), "<pre id=\"errors\" hidden=\"\">");
  EXPECT_NE(run.dom.find("<div class=\"figures\"><div class=\"figure\"><div "
                         "class=\"figure-value\">643 B</div><div class=\"figure-label\">"
                         "memtransfer transferred</div><div class=\"figure-detail\">23 "
                         "transfers</div></div></div>"),
            std::string::npos)
      << run.dom;
  EXPECT_EQ(run.dom.find("memtransfer peak"), std::string::npos);
  // The flame graph opens on the bytes moved (a memory trace's on the leaked bytes).
  EXPECT_NE(run.dom.find("<button type=\"button\" data-weight=\"allocated\" "
                         "aria-pressed=\"true\">"),
            std::string::npos)
      << run.dom;
  EXPECT_NE(run.dom.find("<div id=\"timelines\"><p>Nothing was held: the trace has transfers "
                         "only.</p></div>"),
            std::string::npos)
      << run.dom;
  for (const std::string id : {"peak", "temporary", "leaks"}) {
    const std::size_t section = run.dom.find("<section id=\"" + id + "\">");
    ASSERT_NE(section, std::string::npos) << id;
    const std::size_t end = run.dom.find("</section>", section);
    EXPECT_NE(run.dom.substr(section, end - section).find("\">none</td></tr></tbody>"),
              std::string::npos)
        << id << ": " << run.dom.substr(section, end - section);
  }
}

}  // namespace
}  // namespace rtrace
