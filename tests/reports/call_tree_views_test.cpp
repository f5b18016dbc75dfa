// `rtrace report --bottom-up / --top-down / --function` on a C program with a known call graph
// (call_graph_program.c) recorded by the real `rtrace record`: every figure of the views is
// known from the program, under each weight, in text and JSON, with the depth and width limits.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "support/headless_chromium.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

namespace fs = std::filesystem;

// The C library's frames beneath main, each line after `prefix` ("      200 B  ").
std::string beneath_main(const std::string& prefix) {
  return prefix + "__libc_start_call_main()\n" + prefix + "__libc_start_main()\n" + prefix +
         "_start()\n";
}

class CallTreeViews : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = new test::ScratchDir();
    const auto recorded = test::run_command(
        test::built_tool("rtrace") + " record -q -s -e memory -o " +
        test::quoted(scratch_->path()) + " -x '" + std::string(CALL_GRAPH_PROGRAM) + "'");
    ASSERT_EQ(recorded.status, 0) << recorded.err;
    for (const fs::path& file : test::files_in(scratch_->path())) {
      if (file.extension() == ".rtrace") {
        trace_ = new fs::path(file);
      }
    }
    ASSERT_NE(trace_, nullptr);
  }
  static void TearDownTestSuite() {
    delete trace_;
    delete scratch_;
  }
  static test::CommandResult report(const std::string& options) {
    return test::run_command(test::built_tool("rtrace") + " report " + test::quoted(*trace_) + " " +
                             options);
  }
  // The section of `text` whose heading starts with `heading`, up to the blank line after it.
  static std::string section(const std::string& text, const std::string& heading) {
    const std::size_t start = text.find("\n" + heading);
    if (start == std::string::npos) {
      ADD_FAILURE() << "no " << heading << " in\n" << text;
      return {};
    }
    const std::size_t end = text.find("\n\n", start + 1);
    return text.substr(start + 1, end == std::string::npos ? std::string::npos : end - start);
  }

  static test::ScratchDir* scratch_;
  static fs::path* trace_;
};
test::ScratchDir* CallTreeViews::scratch_ = nullptr;
fs::path* CallTreeViews::trace_ = nullptr;

TEST_F(CallTreeViews, NoneByDefault) {
  const auto r = report("");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("BOTTOM-UP"), std::string::npos);
  EXPECT_EQ(r.out.find("TOP-DOWN"), std::string::npos);
  EXPECT_EQ(r.out.find("CALLERS AND CALLEES"), std::string::npos);
  const auto json = report("--json");
  EXPECT_EQ(json.out.find("\"bottom_up\""), std::string::npos);
}

// The allocating functions: alloc_node (1410 bytes) and parse (50 bytes itself, twice; 500 with
// what it calls). recurse's 10 bytes are under 1 % of alloc_node's: counted, not shown.
TEST_F(CallTreeViews, BottomUpByLeakedBytes) {
  const auto r = report("--bottom-up --weight leaked");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(section(r.out, "BOTTOM-UP"),
            "BOTTOM-UP (leaked bytes: each allocating function, self and inclusive, its callers "
            "beneath)\n"
            "  memory: 1.5 KiB in all\n"
            "    alloc_node(): self 1.4 KiB, inclusive 1.4 KiB\n"
            "      1000 B  load()\n"
            "        1000 B  main()\n" +
                beneath_main("        1000 B  ") +
                "      400 B  parse()\n"
                "        200 B  load()\n"
                "          200 B  main()\n" +
                beneath_main("          200 B  ") + "        200 B  main()\n" +
                beneath_main("          200 B  ") +
                "      ... 1 more\n"
                "    parse(): self 100 B, inclusive 500 B\n"
                "      50 B  load()\n"
                "        50 B  main()\n" +
                beneath_main("        50 B  ") + "      50 B  main()\n" +
                beneath_main("        50 B  "));
}

// The recursion: recurse is on one backtrace three times, and counts once in its callers' costs.
TEST_F(CallTreeViews, TopDownByAllocationsWithEveryCaller) {
  const auto r = report("--top-down --weight allocations --callers-min-share 0");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(section(r.out, "TOP-DOWN"),
            "TOP-DOWN (allocations: from the entry points down, inclusive, and self where a "
            "function allocated itself)\n"
            "  memory: 8 in all\n"
            "    8  _start()\n"
            "    8  __libc_start_main()\n"
            "    8  __libc_start_call_main()\n"
            "    8  main()\n"
            "      4  load()\n"
            "        3  parse(), self 1\n"
            "          2  alloc_node(), self 2\n"
            "        1  alloc_node(), self 1\n"
            "      3  parse(), self 1\n"
            "        2  alloc_node(), self 2\n"
            "      1  recurse()\n"
            "        1  recurse()\n"
            "        1  recurse()\n"
            "        1  alloc_node(), self 1\n");
}

TEST_F(CallTreeViews, CallersAndCalleesOfTheFunctionsAPatternFinds) {
  const auto r = report("--function 'parse|recurse' --weight allocated");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(section(r.out, "CALLERS AND CALLEES"),
            "CALLERS AND CALLEES of /parse|recurse/ (bytes allocated)\n"
            "  memory:\n"
            "    parse(): self 100 B, inclusive 500 B\n"
            "      called from:\n"
            "        250 B  load()\n"
            "          250 B  main()\n" +
                beneath_main("          250 B  ") + "        250 B  main()\n" +
                beneath_main("          250 B  ") +
                "      calls:\n"
                "        400 B  alloc_node(), self 400 B\n"
                "    recurse(): self 0 B, inclusive 10 B\n"
                "      called from:\n"
                "        10 B  main()\n" +
                beneath_main("        10 B  ") +
                "      calls:\n"
                "        10 B  recurse()\n"
                "        10 B  recurse()\n"
                "        10 B  alloc_node(), self 10 B\n");

  const auto none = report("--function '^nothing_here$'");
  ASSERT_EQ(none.status, 0) << none.err;
  EXPECT_EQ(section(none.out, "CALLERS AND CALLEES"),
            "CALLERS AND CALLEES of /^nothing_here$/ (peak bytes)\n"
            "  no function of a backtrace with any of it matches\n");
}

TEST_F(CallTreeViews, DepthAndWidthLimits) {
  const auto r = report("--top-down --weight leaked --depth 5 --sub-limit 1");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(section(r.out, "TOP-DOWN"),
            "TOP-DOWN (leaked bytes: from the entry points down, inclusive, and self where a "
            "function allocated itself)\n"
            "  memory: 1.5 KiB in all\n"
            "    1.5 KiB  _start()\n"
            "    1.5 KiB  __libc_start_main()\n"
            "    1.5 KiB  __libc_start_call_main()\n"
            "    1.5 KiB  main()\n"
            "      1.2 KiB  load()\n"
            "        ... 2 more beneath (--depth)\n"
            "      ... 2 more\n");
}

TEST_F(CallTreeViews, JsonCarriesTheExactFigures) {
  const auto r = report(
      "--json --bottom-up --top-down --function '^recurse' --weight leaked "
      "--depth 2 --callers-min-share 0");
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::ordered_json report = nlohmann::ordered_json::parse(r.out);
  EXPECT_EQ(
      report["bottom_up"].dump(),
      R"j({"weight":"leaked","types":[{"type":"memory","total":1510,"functions":[)j"
      R"j({"function":"alloc_node()","self":1410,"inclusive":1410,"callers":[)j"
      R"j({"function":"load()","inclusive":1000,"callers":[)j"
      R"j({"function":"main()","inclusive":1000,"callers":[],"more":1}]},)j"
      R"j({"function":"parse()","inclusive":400,"callers":[)j"
      R"j({"function":"load()","inclusive":200,"callers":[],"more":1},)j"
      R"j({"function":"main()","inclusive":200,"callers":[],"more":1}]},)j"
      R"j({"function":"recurse()","inclusive":10,"callers":[)j"
      R"j({"function":"recurse()","inclusive":10,"callers":[],"more":1}]}]},)j"
      R"j({"function":"parse()","self":100,"inclusive":500,"callers":[)j"
      R"j({"function":"load()","inclusive":50,"callers":[)j"
      R"j({"function":"main()","inclusive":50,"callers":[],"more":1}]},)j"
      R"j({"function":"main()","inclusive":50,"callers":[)j"
      R"j({"function":"__libc_start_call_main()","inclusive":50,"callers":[],"more":1}]}]}]}]})j");
  EXPECT_EQ(report["top_down"].dump(),
            R"j({"weight":"leaked","types":[{"type":"memory","total":1510,"callees":[)j"
            R"j({"function":"_start()","inclusive":1510,"self":0,"callees":[)j"
            R"j({"function":"__libc_start_main()","inclusive":1510,"self":0,"callees":[],)j"
            R"j("more":1}]}]}]})j");
  EXPECT_EQ(report["callers_callees"].dump(),
            R"j({"pattern":"^recurse","weight":"leaked","types":[{"type":"memory","functions":[)j"
            R"j({"function":"recurse()","self":0,"inclusive":10,"callers":[)j"
            R"j({"function":"main()","inclusive":10,"callers":[)j"
            R"j({"function":"__libc_start_call_main()","inclusive":10,"callers":[],"more":1}]}],)j"
            R"j("callees":[{"function":"recurse()","inclusive":10,"self":0,"callees":[)j"
            R"j({"function":"recurse()","inclusive":10,"self":0,"callees":[],"more":1}]}]}]}]})j");
}

// With --html, the views asked for are tables of the page, names whole (the page shortens them
// with its own switch): the bottom-up view's first function with its leaked bytes, its callers
// beneath.
TEST_F(CallTreeViews, ThePageDrawsTheViewsAskedFor) {
  const test::ScratchDir dir;
  const fs::path page = dir / "report.html";
  const auto r = report("--html " + test::quoted(page) + " --bottom-up --weight leaked");
  ASSERT_EQ(r.status, 0) << r.err;
  const test::BrowserRun run = test::dump_dom(test::file_url(page));
  ASSERT_EQ(run.status, 0) << run.log;
  EXPECT_EQ(test::console_messages(run.log), "");
  const std::size_t section =
      run.dom.find("<section id=\"bottom-up-memory\"><h2>Bottom-up: memory by leaked bytes</h2>");
  ASSERT_NE(section, std::string::npos) << run.dom;
  const std::string rest = run.dom.substr(section);
  const std::size_t alloc_node = rest.find("<td data-value=\"alloc_node()\"");
  const std::size_t load = rest.find("load()");
  ASSERT_NE(alloc_node, std::string::npos) << rest;
  EXPECT_LT(alloc_node, load) << rest;
  EXPECT_NE(rest.find("data-value=\"1410\""), std::string::npos) << rest;
  EXPECT_EQ(run.dom.find("id=\"top-down-memory\""), std::string::npos);
}

TEST_F(CallTreeViews, BadOptionsAreRefusedBeforeReading) {
  const auto regex = report("--function '('");
  EXPECT_EQ(regex.status, 2);
  EXPECT_NE(regex.err.find("--function: not a regular expression: '('"), std::string::npos)
      << regex.err;
  const auto weight = report("--weight bytes");
  EXPECT_EQ(weight.status, 2);
  EXPECT_NE(weight.err.find("--weight: bytes not in {peak,leaked,allocated,allocations,temporary}"),
            std::string::npos)
      << weight.err;
}

}  // namespace
}  // namespace rtrace
