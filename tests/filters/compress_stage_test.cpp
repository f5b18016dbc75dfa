#include "filters/compress_stage.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "filters/backtrace_depth_filter.h"
#include "filters/leaks_filter.h"
#include "filters/stage_test_support.h"
#include "support/recording_sink.h"

namespace rtrace {
namespace {

using test::RecordingSink;
using test::TraceBuilder;

// Each group as one line with its shared backtrace, then its calls indented (without their
// backtrace, which must be the group's), then the leak summaries.
std::vector<std::string> body(const RecordingSink& sink) {
  std::vector<std::string> kept;
  std::size_t group_line = 0;
  std::uint64_t calls_left = 0;
  for (const std::string& line : sink.lines()) {
    if (line.starts_with("group")) {
      std::sscanf(line.c_str(), "group calls=%lu", &calls_left);
      kept.push_back("group" + line.substr(line.find(" blocks=")));
      group_line = kept.size() - 1;
      continue;
    }
    if (line.starts_with("call") && calls_left > 0) {
      --calls_left;
      const std::size_t bt = line.find(" bt=");
      const std::string frames = bt == std::string::npos ? " bt=[]" : line.substr(bt);
      if (!kept[group_line].ends_with("]")) {
        kept[group_line] += frames;
      }
      EXPECT_TRUE(kept[group_line].ends_with(frames)) << "a call's backtrace is not its group's";
      kept.push_back("  " + line.substr(0, bt));
      continue;
    }
    if (line.starts_with("leaks")) {
      kept.push_back(line);
    }
  }
  return kept;
}

TraceBuilder sample() {
  TraceBuilder trace;
  trace.alloc(1, 0x10, 30, {0xa, 0x1})
      .release(2, 0x10)
      .alloc(3, 0x20, 5, {0xb, 0x1})
      .argument("n", "1")
      .alloc(4, 0x30, 10, {0xa, 0x1})
      .alloc(5, 0x40, 25, {0xc, 0x2})
      .release(6, 0x30);
  return trace;
}

TEST(CompressStage, GroupsByBacktraceSizeAscendingByDefault) {
  RecordingSink out;
  CompressStage compress(out, GroupOrder::SizeAscending);
  sample().push(compress);
  EXPECT_EQ(out.lines().front(), "handshake 2.0 arch=x86_64 LE ptr=8 origin= filters=c");
  EXPECT_EQ(body(out), (std::vector<std::string>{
                           "group blocks=2 size=0 bt=[]",
                           "  call #2 free kind=1 type=1 ctx=0x0 ts=0 size=0 id=0x10",
                           "  call #6 free kind=1 type=1 ctx=0x0 ts=0 size=0 id=0x30",
                           "group blocks=1 size=5 bt=[0xb,0x1]",
                           "  call #3 malloc kind=2 type=1 ctx=0x0 ts=0 size=5 id=0x20 $n=1",
                           "group blocks=1 size=25 bt=[0xc,0x2]",
                           "  call #5 malloc kind=2 type=1 ctx=0x0 ts=0 size=25 id=0x40",
                           "group blocks=2 size=40 bt=[0xa,0x1]",
                           "  call #1 malloc kind=2 type=1 ctx=0x0 ts=0 size=30 id=0x10",
                           "  call #4 malloc kind=2 type=1 ctx=0x0 ts=0 size=10 id=0x30",
                       }));
}

std::vector<std::string> group_lines(GroupOrder order) {
  RecordingSink out;
  CompressStage compress(out, order);
  sample().push(compress);
  std::vector<std::string> groups;
  for (const std::string& line : body(out)) {
    if (line.starts_with("group")) {
      groups.push_back(line.substr(0, line.find(" bt=")));
    }
  }
  return groups;
}

TEST(CompressStage, SortOrders) {
  using V = std::vector<std::string>;
  EXPECT_EQ(group_lines(GroupOrder::SizeDescending),
            (V{"group blocks=2 size=40", "group blocks=1 size=25", "group blocks=1 size=5",
               "group blocks=2 size=0"}));
  // Ties are broken by the first call index of the group.
  EXPECT_EQ(group_lines(GroupOrder::CountDescending),
            (V{"group blocks=2 size=40", "group blocks=2 size=0", "group blocks=1 size=5",
               "group blocks=1 size=25"}));
  EXPECT_EQ(group_lines(GroupOrder::CountAscending),
            (V{"group blocks=1 size=5", "group blocks=1 size=25", "group blocks=2 size=40",
               "group blocks=2 size=0"}));
}

TEST(CompressStage, ParsesTheOriginalSortNames) {
  EXPECT_EQ(parse_group_order("size"), GroupOrder::SizeDescending);
  EXPECT_EQ(parse_group_order("size-asc"), GroupOrder::SizeAscending);
  EXPECT_EQ(parse_group_order("count"), GroupOrder::CountDescending);
  EXPECT_EQ(parse_group_order("count-asc"), GroupOrder::CountAscending);
  EXPECT_EQ(parse_group_order("bogus"), std::nullopt);
}

TEST(CompressStage, LeakSummaryComesAfterTheGroups) {
  RecordingSink out;
  CompressStage compress(out, GroupOrder::SizeAscending);
  LeaksFilter leaks(compress);
  sample().push(leaks);
  EXPECT_EQ(out.lines().front(), "handshake 2.0 arch=x86_64 LE ptr=8 origin= filters=lc");
  EXPECT_EQ(body(out), (std::vector<std::string>{
                           "group blocks=1 size=5 bt=[0xb,0x1]",
                           "  call #3 malloc kind=2 type=1 ctx=0x0 ts=0 size=5 id=0x20 $n=1",
                           "group blocks=1 size=25 bt=[0xc,0x2]",
                           "  call #5 malloc kind=2 type=1 ctx=0x0 ts=0 size=25 id=0x40",
                           "leaks type=1 memory (memory allocation in bytes) blocks=2 bytes=30",
                       }));
}

TEST(CompressStage, GroupsMergeWhenTrimmedBacktracesBecomeEqual) {
  RecordingSink out;
  CompressStage compress(out, GroupOrder::SizeAscending);
  BacktraceDepthFilter depth(compress, 1);
  sample().push(depth);
  EXPECT_EQ(out.lines()[1], "process pid=7 name=./prog start=0.000000 text= depth=1");
  std::vector<std::string> groups;
  for (const std::string& line : body(out)) {
    if (line.starts_with("group")) {
      groups.push_back(line);
    }
  }
  EXPECT_EQ(groups, (std::vector<std::string>{
                        "group blocks=2 size=0 bt=[]", "group blocks=1 size=5 bt=[0xb]",
                        "group blocks=1 size=25 bt=[0xc]", "group blocks=2 size=40 bt=[0xa]"}));
}

}  // namespace
}  // namespace rtrace
