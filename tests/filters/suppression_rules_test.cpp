#include "filters/suppression_rules.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "filters/leaks_filter.h"
#include "filters/stage_test_support.h"
#include "filters/suppress_stage.h"
#include "filters/suppression_pattern.h"
#include "support/recording_sink.h"

namespace rtrace {
namespace {

using test::RecordingSink;
using test::TraceBuilder;

TEST(SuppressionPattern, SubstringUnlessAnchoredWithWildcards) {
  EXPECT_TRUE(suppression_pattern_matches("alloc", "xmalloc_impl"));
  EXPECT_TRUE(suppression_pattern_matches("^xmalloc", "xmalloc_impl"));
  EXPECT_FALSE(suppression_pattern_matches("^malloc", "xmalloc_impl"));
  EXPECT_TRUE(suppression_pattern_matches("impl$", "xmalloc_impl"));
  EXPECT_FALSE(suppression_pattern_matches("malloc$", "xmalloc_impl"));
  EXPECT_TRUE(suppression_pattern_matches("^xmalloc_impl$", "xmalloc_impl"));
  EXPECT_FALSE(suppression_pattern_matches("^xmalloc$", "xmalloc_impl"));
  EXPECT_TRUE(suppression_pattern_matches("x*_impl", "xmalloc_impl"));
  EXPECT_TRUE(suppression_pattern_matches("^x*l$", "xmalloc_impl"));
  EXPECT_FALSE(suppression_pattern_matches("^x*c$", "xmalloc_impl"));
  EXPECT_TRUE(suppression_pattern_matches("^libfoo.so*$", "libfoo.so.1"));
  EXPECT_FALSE(suppression_pattern_matches("a", ""));  // nothing known never matches
}

TEST(SuppressionRules, ReadsLeakRulesCommentsAndBlankLines) {
  SuppressionRules rules;
  rules.add("# known\n\n  leak:first  \nleak:^second$\r\n", "a.supp");
  rules.add("leak:third\n", "b.supp");
  ASSERT_EQ(rules.rules().size(), 3U);
  EXPECT_EQ(rules.rules()[0].pattern, "first");
  EXPECT_EQ(rules.rules()[0].source, "a.supp");
  EXPECT_EQ(rules.rules()[0].line, 3U);
  EXPECT_EQ(rules.rules()[1].pattern, "^second$");
  EXPECT_EQ(rules.rules()[1].line, 4U);
  EXPECT_EQ(rules.rules()[2].source, "b.supp");
  EXPECT_EQ(rules.rules()[2].line, 1U);
}

TEST(SuppressionRules, OtherKindsAreIgnoredWithOneWarning) {
  SuppressionRules rules;
  std::vector<std::string> warnings;
  rules.add("leak:a\ncalled_from_lib:libfoo.so\nrace:b\nleak:c\n", "s.supp",
            [&](std::string_view w) { warnings.emplace_back(w); });
  EXPECT_EQ(rules.rules().size(), 2U);
  EXPECT_EQ(warnings, (std::vector<std::string>{
                          "s.supp:2: 2 rule(s) of kinds other than 'leak:' ignored (the first: "
                          "'called_from_lib:'); only leak rules apply to a trace"}));
}

TEST(SuppressionRules, AMalformedLineIsAnErrorNamingFileAndLine) {
  const auto error_of = [](std::string_view text) {
    SuppressionRules rules;
    try {
      rules.add(text, "bad.supp");
    } catch (const std::runtime_error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("leak:a\n\njust_a_name\n"),
            "bad.supp:3: expected 'leak:PATTERN', got 'just_a_name'");
  EXPECT_EQ(error_of("leak:\n"), "bad.supp:1: expected 'leak:PATTERN', got 'leak:'");
  EXPECT_EQ(error_of(":pattern\n"), "bad.supp:1: expected 'leak:PATTERN', got ':pattern'");
}

TEST(SuppressionRules, MatchFunctionFileModulePathOrModuleFileName) {
  SuppressionRules rules;
  rules.add("leak:^init_cache$\nleak:cache.c\nleak:^libfoo.so\nleak:/opt/\n", "s");
  EXPECT_EQ(rules.match(SuppressionFrame{.function = "init_cache"}), 0U);
  EXPECT_EQ(rules.match(SuppressionFrame{.function = "init_cache_2"}), std::nullopt);
  EXPECT_EQ(rules.match(SuppressionFrame{.file = "src/cache.c"}), 1U);
  EXPECT_EQ(rules.match(SuppressionFrame{.module = "/usr/lib/libfoo.so.1"}), 2U);
  EXPECT_EQ(rules.match(SuppressionFrame{.module = "/opt/lib/libbar.so"}), 3U);
  EXPECT_EQ(rules.match(SuppressionFrame{.module = "/usr/lib/libbar.so"}), std::nullopt);
}

TEST(SuppressionRules, InlinedCallersMatchToo) {
  SuppressionRules rules;
  rules.add("leak:^outer$\n", "s");
  Symbol symbol;
  symbol.module = "/bin/prog";
  symbol.where.function = "inner";
  EXPECT_EQ(rules.match_symbol(symbol), std::nullopt);
  SourcePosition outer;
  outer.function = "outer";
  symbol.inlined_by.push_back(outer);
  EXPECT_EQ(rules.match_symbol(symbol), 0U);
}

std::vector<std::string> kept_lines(const RecordingSink& sink) {
  std::vector<std::string> kept;
  for (const std::string& line : sink.lines()) {
    if (line.starts_with("call") || line.starts_with("leaks") || line.starts_with("note")) {
      kept.push_back(line);
    }
  }
  return kept;
}

// After the leaks stage: the leak from the suppressed module goes, the summary is lessened by
// it, and notes say what went and by which rule.
TEST(SuppressStage, LeavesOutMatchedLeaksAndSaysSo) {
  auto rules = std::make_shared<SuppressionRules>();
  rules->add("leak:libruntime\n", "r.supp");
  TraceBuilder trace;
  trace.alloc(1, 0x10, 16, {0x401000})
      .alloc(2, 0x20, 100, {0x7f0010, 0x401000})
      .alloc(3, 0x30, 7, {0x7f0020})
      .release(4, 0x10);
  RecordingSink out;
  SuppressStage suppress(out, rules);
  LeaksFilter leaks(suppress);
  leaks.mapping({.from = 0x7f0000, .to = 0x800000, .path = "/usr/lib/libruntime.so.1"});
  trace.push(leaks);
  EXPECT_EQ(kept_lines(out),
            (std::vector<std::string>{
                "note # suppressed: 2 block(s) with total size 107",
                "note #   2 block(s) with total size 107 by leak:libruntime (r.supp:1)",
                "leaks type=1 memory (memory allocation in bytes) blocks=0 bytes=0",
            }));
  EXPECT_EQ(out.finish_count(), 1);
}

TEST(SuppressStage, KeepsWhatNoRuleMatches) {
  auto rules = std::make_shared<SuppressionRules>();
  rules->add("leak:libruntime\n", "r.supp");
  TraceBuilder trace;
  trace.alloc(1, 0x10, 16, {0x401000});
  RecordingSink out;
  SuppressStage suppress(out, rules);
  LeaksFilter leaks(suppress);
  leaks.mapping({.from = 0x400000, .to = 0x500000, .path = "/bin/prog"});
  trace.push(leaks);
  EXPECT_EQ(kept_lines(out),
            (std::vector<std::string>{
                "call #1 malloc kind=2 type=1 ctx=0x0 ts=0 size=16 id=0x10 bt=[0x401000]",
                "leaks type=1 memory (memory allocation in bytes) blocks=1 bytes=16",
            }));
}

}  // namespace
}  // namespace rtrace
