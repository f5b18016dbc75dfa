// The stages that only select calls: -C, -R, --include/--exclude, --call-address, -a.
#include <gtest/gtest.h>

#include "filters/call_address_filter.h"
#include "filters/context_filter.h"
#include "filters/index_filter.h"
#include "filters/remove_args_filter.h"
#include "filters/resource_filter.h"
#include "filters/stage_test_support.h"
#include "support/recording_sink.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

using test::RecordingSink;
using test::TraceBuilder;

std::vector<std::uint64_t> indices(const RecordingSink& sink) {
  std::vector<std::uint64_t> result;
  for (const std::string& line : sink.lines()) {
    if (line.starts_with("call #")) {
      result.push_back(std::stoull(line.substr(6)));
    }
  }
  return result;
}

std::vector<std::string> lines_starting(const RecordingSink& sink, std::string_view prefix) {
  std::vector<std::string> result;
  for (const std::string& line : sink.lines()) {
    if (line.starts_with(prefix)) {
      result.push_back(line);
    }
  }
  return result;
}

TraceBuilder contexts() {
  TraceBuilder trace;
  trace.alloc(1, 0x1, 1, {0x1}, 1, 0)
      .alloc(2, 0x2, 1, {0x1}, 1, 1)
      .alloc(3, 0x3, 1, {0x1}, 1, 3)
      .alloc(4, 0x4, 1, {0x1}, 1, 2)
      .release(5, 0x2, 1, 0);
  return trace;
}

std::vector<std::uint64_t> with_context_mask(std::uint32_t mask) {
  RecordingSink out;
  ContextFilter filter(out, mask);
  filter.context({.id = 1, .name = "alpha"});
  filter.context({.id = 2, .name = "beta"});
  contexts().push(filter);
  return indices(out);
}

TEST(ContextFilter, ZeroKeepsCallsOutsideEveryContextOtherMasksIntersect) {
  using V = std::vector<std::uint64_t>;
  EXPECT_EQ(with_context_mask(0), (V{1, 5}));
  EXPECT_EQ(with_context_mask(1), (V{2, 3}));
  EXPECT_EQ(with_context_mask(2), (V{3, 4}));
  EXPECT_EQ(with_context_mask(4), (V{}));
}

TEST(ContextFilter, KeepsOnlySelectedRegistryEntries) {
  RecordingSink out;
  ContextFilter filter(out, 2);
  filter.context({.id = 1, .name = "alpha"});
  filter.context({.id = 2, .name = "beta"});
  EXPECT_EQ(out.lines(), (std::vector<std::string>{"context 0x2 beta"}));
}

const std::vector<ResourceType> kFileTypes = {
    {.id = 1, .type = "fd", .description = "file descriptor"},
    {.id = 2, .type = "fp", .description = "file pointer"},
    {.id = 3, .type = "x", .description = "third"},
};

TraceBuilder files() {
  TraceBuilder trace;
  trace.alloc(1, 0x4, 1, {0x1}, 1).alloc(2, 0x5, 1, {0x1}, 2).alloc(3, 0x6, 1, {0x1}, 3);
  return trace;
}

TEST(ResourceFilter, SingleRemainingTypeBecomesTypeOne) {
  RecordingSink out;
  ResourceFilter filter(out, 0x2);
  files().push(filter, kFileTypes);
  EXPECT_EQ(lines_starting(out, "resource"),
            (std::vector<std::string>{"resource 1 flags=0x0 fp (file pointer)"}));
  EXPECT_EQ(lines_starting(out, "call"),
            (std::vector<std::string>{
                "call #2 malloc kind=2 type=1 ctx=0x0 ts=0 size=1 id=0x5 bt=[0x1]"}));
}

TEST(ResourceFilter, SeveralRemainingTypesKeepTheirIds) {
  RecordingSink out;
  ResourceFilter filter(out, 0x5);
  files().push(filter, kFileTypes);
  EXPECT_EQ(lines_starting(out, "resource"),
            (std::vector<std::string>{"resource 1 flags=0x0 fd (file descriptor)",
                                      "resource 3 flags=0x0 x (third)"}));
  EXPECT_EQ(indices(out), (std::vector<std::uint64_t>{1, 3}));
}

TEST(IndexFilter, IncludeAndExcludeFiles) {
  test::ScratchDir dir;
  test::write_file(dir / "list", "2\n  0x3\nnot a number\n\n");
  const IndexSet listed = load_index_file((dir / "list").string());
  EXPECT_EQ(listed, (IndexSet{2, 3}));

  RecordingSink included;
  IndexFilter include(included, listed, IndexFilter::Mode::Include);
  files().push(include, kFileTypes);
  EXPECT_EQ(indices(included), (std::vector<std::uint64_t>{2, 3}));

  RecordingSink excluded;
  IndexFilter exclude(excluded, listed, IndexFilter::Mode::Exclude);
  files().push(exclude, kFileTypes);
  EXPECT_EQ(indices(excluded), (std::vector<std::uint64_t>{1}));

  EXPECT_THROW(load_index_file((dir / "missing").string()), std::runtime_error);
}

TEST(CallAddressFilter, ParsesTargetStartAndSize) {
  const std::optional<CallAddressRange> range = parse_call_address("/lib/libc.so.6:1a0+0x20");
  ASSERT_TRUE(range);
  EXPECT_EQ(range->target, "/lib/libc.so.6");
  EXPECT_EQ(range->start, 0x1a0U);
  EXPECT_EQ(range->size, 0x20U);
  EXPECT_FALSE(parse_call_address("libc.so.6"));
  EXPECT_FALSE(parse_call_address("libc.so.6:12"));
  EXPECT_FALSE(parse_call_address("libc.so.6:xyz+1"));
  EXPECT_FALSE(parse_call_address(":1+1"));
}

TEST(CallAddressFilter, KeepsCallsWithAFrameInTheRangeRelativeToTheModule) {
  TraceBuilder trace;
  trace.alloc(1, 0x1, 1, {0x7000100f, 0x401000})
      .alloc(2, 0x2, 1, {0x70001010, 0x401000})
      .alloc(3, 0x3, 1, {0x401000, 0x70001000})
      .release(4, 0x1);
  RecordingSink out;
  std::vector<std::string> warnings;
  CallAddressFilter filter(out, *parse_call_address("libfoo:1000+10"),
                           [&](std::string_view w) { warnings.emplace_back(w); });
  filter.mapping({.from = 0x400000, .to = 0x402000, .path = "/nonexistent/prog"});
  filter.mapping({.from = 0x70000000, .to = 0x70002000, .path = "/nonexistent/libfoo.so"});
  trace.push(filter);
  EXPECT_EQ(indices(out), (std::vector<std::uint64_t>{1, 3}));
  EXPECT_TRUE(warnings.empty());
}

TEST(CallAddressFilter, UnknownTargetKeepsEverythingAndWarnsOnce) {
  RecordingSink out;
  std::vector<std::string> warnings;
  CallAddressFilter filter(out, *parse_call_address("libbar:0+10"),
                           [&](std::string_view w) { warnings.emplace_back(w); });
  files().push(filter, kFileTypes);
  EXPECT_EQ(indices(out), (std::vector<std::uint64_t>{1, 2, 3}));
  EXPECT_EQ(
      warnings,
      (std::vector<std::string>{"--call-address: no module matches 'libbar'; keeping every call"}));
}

TEST(RemoveArgsFilter, DropsArguments) {
  TraceBuilder trace;
  trace.alloc(1, 0x4, 1, {0x1}).argument("path", "/tmp/x");
  RecordingSink out;
  RemoveArgsFilter filter(out);
  trace.push(filter);
  EXPECT_EQ(lines_starting(out, "call"),
            (std::vector<std::string>{
                "call #1 malloc kind=2 type=1 ctx=0x0 ts=0 size=1 id=0x4 bt=[0x1]"}));
}

}  // namespace
}  // namespace rtrace
