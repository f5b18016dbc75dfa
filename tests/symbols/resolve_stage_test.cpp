#include "symbols/resolve_stage.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "probe_output.h"
#include "support/recording_sink.h"

namespace rtrace::symbols {
namespace {

// Options with one setting changed from the defaults.
ResolveOptions symbol_table_method() {
  ResolveOptions options;
  options.method = ResolveMethod::SymbolTable;
  return options;
}
ResolveOptions keeping_resolved() {
  ResolveOptions options;
  options.keep_resolved = true;
  return options;
}

class ResolveStageTest : public ::testing::Test {
 protected:
  void SetUp() override { output_ = test::run_probe(RESOLVE_C_O0); }

  void start(const ResolveOptions& options) {
    sink_ = std::make_unique<test::RecordingSink>();
    stage_ = make_resolve_stage(*sink_, options);
    stage_->header(TraceHeader{});
    for (const Mapping& mapping : output_.maps) {
      stage_->mapping(mapping);
    }
  }

  void call(std::uint64_t index, const std::vector<Frame>& frames) {
    CallRecord record;
    record.call.index = index;
    record.function = "malloc";
    record.frames = frames;
    stage_->call(record);
  }

  // The recorded lines from the first call on (the header and maps left out).
  std::vector<std::string> after_maps() const {
    const auto& lines = sink_->lines();
    return {lines.begin() + 1 + static_cast<std::ptrdiff_t>(output_.maps.size()), lines.end()};
  }

  Frame frame_at(const std::string& function) const {
    return {.address = test::frame_of(output_, function).address};
  }
  // How the recording sink shows `function`'s frame resolved from the debug information.
  std::string source_frame(const std::string& function) const {
    const test::ProbeFrame& frame = test::frame_of(output_, function);
    return fmt::format("{:#x}<{} at {} in {}>", frame.address, function, frame.location,
                       RESOLVE_C_O0);
  }

  test::ProbeOutput output_;
  std::unique_ptr<test::RecordingSink> sink_;
  std::unique_ptr<TraceSink> stage_;
};

TEST_F(ResolveStageTest, SetsTheResolveFilterFlag) {
  start({});
  EXPECT_TRUE(sink_->lines().front().ends_with("filters=r")) << sink_->text();
}

TEST_F(ResolveStageTest, AttachesASymbolToEveryAddressFrame) {
  start({});
  call(1, {frame_at("middle()"), frame_at("main()")});
  call(2, {frame_at("main()")});
  stage_->finish();
  const std::vector<std::string> lines = after_maps();
  ASSERT_EQ(lines.size(), 2U) << sink_->text();
  EXPECT_TRUE(lines[0].ends_with(
      fmt::format("bt=[{},{}]", source_frame("middle()"), source_frame("main()"))))
      << lines[0];
  EXPECT_TRUE(lines[1].ends_with(fmt::format("bt=[{}]", source_frame("main()")))) << lines[1];
  // Each distinct answer is announced once, whatever the number of frames naming it.
  EXPECT_EQ(sink_->symbols().size(), 2U);
  EXPECT_EQ(sink_->finish_count(), 1);
}

TEST_F(ResolveStageTest, SymbolTableForm) {
  start(symbol_table_method());
  call(1, {frame_at("leaf_static()")});
  EXPECT_TRUE(after_maps().front().ends_with(fmt::format(
      "bt=[{:#x}<leaf_static() in {}>]", frame_at("leaf_static()").address, RESOLVE_C_O0)))
      << sink_->text();
}

TEST_F(ResolveStageTest, ResolvedInputIsReplacedUnlessKept) {
  Frame main_frame = frame_at("main()");
  main_frame.symbol = 7;
  Symbol stale;
  stale.where.function = "stale";
  stale.where.parameters = "()";
  stale.module = "/old/path";

  start({});
  stage_->symbol(7, stale);
  call(1, {main_frame});
  EXPECT_TRUE(after_maps().front().ends_with(fmt::format("bt=[{}]", source_frame("main()"))))
      << sink_->text();

  start(keeping_resolved());
  stage_->symbol(7, stale);
  call(1, {main_frame});
  EXPECT_TRUE(after_maps().front().ends_with(
      fmt::format("bt=[{:#x}<stale() in /old/path>]", main_frame.address)))
      << sink_->text();
}

// Frames known only by name (mpatrol, apitrace) keep their symbol: there is nothing to resolve.
TEST_F(ResolveStageTest, KeepsSymbolOnlyFrames) {
  Symbol named;
  named.where.function = "alloc_node";
  named.where.file = "list.c";
  named.where.line = 12;
  start({});
  stage_->symbol(3, named);
  call(1, {{.address = 0, .symbol = 3}});
  EXPECT_TRUE(after_maps().front().ends_with("bt=[0x0<alloc_node at list.c:12>]")) << sink_->text();
}

// A library unloaded and another loaded at the same place: the same address means something
// else from then on.
TEST_F(ResolveStageTest, FollowsTheMapWhenItChanges) {
  start({});
  const Frame frame = frame_at("middle()");
  call(1, {frame});
  stage_->mapping({frame.address - 0x100, frame.address + 0x100, "/nonexistent/replacement.so"});
  call(2, {frame});
  const std::vector<std::string> lines = after_maps();
  ASSERT_EQ(lines.size(), 3U) << sink_->text();
  EXPECT_TRUE(lines[0].ends_with(fmt::format("bt=[{}]", source_frame("middle()")))) << lines[0];
  EXPECT_TRUE(
      lines[2].ends_with(fmt::format("bt=[{:#x}< in /nonexistent/replacement.so>]", frame.address)))
      << lines[2];
}

ResolveOptions with_jobs(unsigned jobs) {
  ResolveOptions options;
  options.jobs = jobs;
  return options;
}

// Every record the stage passes on for a trace that asks about many distinct addresses (every
// 3rd byte of each code mapping, 1,500 at most per mapping: enough for several threads), with
// the other records between its calls: a group, a symbol-only frame, a map that changes.
std::vector<std::string> resolve_many(const test::ProbeOutput& probe,
                                      const ResolveOptions& options) {
  test::RecordingSink sink;
  const std::unique_ptr<TraceSink> stage = make_resolve_stage(sink, options);
  stage->header(TraceHeader{});
  for (const Mapping& mapping : probe.maps) {
    stage->mapping(mapping);
  }
  std::vector<Frame> frames;
  for (const Mapping& mapping : probe.maps) {
    for (Address address = mapping.from; address < mapping.to && address < mapping.from + 4500;
         address += 3) {
      frames.push_back({.address = address});
    }
  }
  Symbol named;
  named.where.function = "alloc_node";
  stage->symbol(3, named);
  // The reader's buffers are reused from call to call: the stage must copy what it holds.
  std::string function;
  std::string value;
  std::uint64_t index = 0;
  const auto call = [&](std::span<const Frame> backtrace) {
    ++index;
    function = fmt::format("malloc{}", index % 3);
    value = fmt::format("{}", index);
    const Argument argument{"size", value};
    CallRecord record;
    record.call.index = index;
    record.function = function;
    record.arguments = std::span<const Argument>(&argument, 1);
    record.frames = backtrace;
    stage->call(record);
    function.assign(function.size(), '?');
    value.assign(value.size(), '?');
  };
  const std::size_t half = frames.size() / 2;
  for (std::size_t i = 0; i + 8 <= half; i += 8) {
    call(std::span<const Frame>(frames).subspan(i, 8));
  }
  stage->group(CallGroup{.call_count = 2, .block_count = 2, .total_size = 64});
  const Frame symbol_only{.address = 0, .symbol = 3};
  call(std::span<const Frame>(&symbol_only, 1));
  call(std::span<const Frame>(frames).subspan(0, 4));
  stage->mapping({frames.front().address, frames.front().address + 0x100, "/nonexistent/new.so"});
  for (std::size_t i = half; i + 8 <= frames.size(); i += 8) {
    call(std::span<const Frame>(frames).subspan(i, 8));
  }
  call(std::span<const Frame>(frames).subspan(0, 4));
  stage->finish();
  return sink.lines();
}

// Looking addresses up on several threads changes neither the answers nor their order.
TEST_F(ResolveStageTest, SeveralThreadsGiveTheSameRecords) {
  const std::vector<std::string> alone = resolve_many(output_, with_jobs(1));
  ASSERT_GT(alone.size(), 400U);
  EXPECT_EQ(resolve_many(output_, with_jobs(2)), alone);
  EXPECT_EQ(resolve_many(output_, with_jobs(5)), alone);
}

TEST(ResolveStageThreads, OptimisedCxxTheSameOnSeveralThreads) {
  const test::ProbeOutput probe = test::run_probe(RESOLVE_CXX_O2);
  const std::vector<std::string> alone = resolve_many(probe, with_jobs(1));
  EXPECT_EQ(resolve_many(probe, with_jobs(3)), alone);
}

// Held calls go on before the end when there are many of them, even without frames: memory
// stays bounded whatever the trace.
TEST(ResolveStageThreads, HeldCallsGoOnBeforeTheEnd) {
  test::RecordingSink sink;
  const std::unique_ptr<TraceSink> stage = make_resolve_stage(sink, with_jobs(2));
  stage->header(TraceHeader{});
  CallRecord record;
  record.function = "malloc";
  for (std::uint64_t index = 1; index <= 200'000; ++index) {
    record.call.index = index;
    stage->call(record);
  }
  EXPECT_GE(sink.lines().size(), 100'000U);
  EXPECT_LT(sink.lines().size(), 200'001U);
  stage->finish();
  EXPECT_EQ(sink.lines().size(), 200'001U);
  EXPECT_EQ(sink.lines().back().substr(0, 12), "call #200000");
}

}  // namespace
}  // namespace rtrace::symbols
