#include "symbols/resolve_stage.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

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
    stage_->handshake(Handshake{});
    for (const Mapping& mapping : output_.maps) {
      stage_->mapping(mapping);
    }
  }

  void call(std::uint64_t index, const std::vector<Address>& frames) {
    CallRecord record;
    record.call.index = index;
    record.function = "malloc";
    record.frames = frames;
    stage_->call(record);
  }

  // The recorded lines from the first call-related one on (the header and maps left out).
  std::vector<std::string> after_maps() const {
    const auto& lines = sink_->lines();
    return {lines.begin() + 1 + static_cast<std::ptrdiff_t>(output_.maps.size()), lines.end()};
  }

  Address address_of(const std::string& function) const {
    return test::frame_of(output_, function).address;
  }

  test::ProbeOutput output_;
  std::unique_ptr<test::RecordingSink> sink_;
  std::unique_ptr<TraceSink> stage_;
};

TEST_F(ResolveStageTest, SetsTheResolveFilterFlag) {
  start({});
  EXPECT_TRUE(sink_->lines().front().ends_with("filters=r")) << sink_->text();
}

TEST_F(ResolveStageTest, AnnouncesEachAddressOnceBeforeItsFirstCall) {
  start({});
  const Address main_frame = address_of("main()");
  const Address middle = address_of("middle()");
  call(1, {middle, main_frame});
  call(2, {main_frame});
  stage_->finish();
  const std::vector<std::string> lines = after_maps();
  ASSERT_EQ(lines.size(), 4U) << sink_->text();
  EXPECT_EQ(lines[0], fmt::format("symbol {:#x} middle() where=1 prog_c.c:{}", middle,
                                  test::frame_of(output_, "middle()").location.substr(9)));
  EXPECT_EQ(lines[1].substr(0, lines[1].find(" where")),
            fmt::format("symbol {:#x} main()", main_frame));
  EXPECT_TRUE(lines[2].starts_with("call #1 ")) << lines[2];
  EXPECT_TRUE(lines[3].starts_with("call #2 ")) << lines[3];
  EXPECT_EQ(sink_->finish_count(), 1);
}

TEST_F(ResolveStageTest, SymbolTableForm) {
  start(symbol_table_method());
  call(1, {address_of("leaf_static()")});
  EXPECT_EQ(after_maps().front(), fmt::format("symbol {:#x} leaf_static() where=0 {}",
                                              address_of("leaf_static()"), RESOLVE_C_O0));
}

TEST_F(ResolveStageTest, ResolvedInputIsReplacedUnlessKept) {
  const Address main_frame = address_of("main()");
  const SymbolInfo stale{"stale()", SymbolInfo::Where::Module, "/old/path", {}};

  start({});
  stage_->symbol(main_frame, stale);
  call(1, {main_frame});
  std::vector<std::string> lines = after_maps();
  ASSERT_EQ(lines.size(), 2U) << sink_->text();
  EXPECT_NE(lines[0].find(" main() where=1 prog_c.c:"), std::string::npos) << lines[0];

  start(keeping_resolved());
  stage_->symbol(main_frame, stale);
  call(1, {main_frame});
  lines = after_maps();
  ASSERT_EQ(lines.size(), 2U) << sink_->text();
  EXPECT_EQ(lines[0], fmt::format("symbol {:#x} stale() where=0 /old/path", main_frame));
}

TEST_F(ResolveStageTest, ResolvesGroupBacktraces) {
  start({});
  const std::vector<Address> frames{address_of("middle()")};
  CallRecord member;
  member.call.index = 3;
  member.function = "malloc";
  const std::vector<CallRecord> calls{member};
  stage_->call_group(CallGroup{calls, frames, 1, 16});
  const std::vector<std::string> lines = after_maps();
  ASSERT_EQ(lines.size(), 3U) << sink_->text();
  EXPECT_TRUE(lines[0].starts_with(fmt::format("symbol {:#x} middle()", frames[0])));
}

// A library unloaded and another loaded at the same place: the same address means something
// else from then on, and is announced again.
TEST_F(ResolveStageTest, AnnouncesAgainWhenTheMapChanges) {
  start({});
  const Address address = address_of("middle()");
  call(1, {address});
  stage_->mapping({address - 0x100, address + 0x100, "/nonexistent/replacement.so"});
  call(2, {address});
  call(3, {address});
  const std::vector<std::string> lines = after_maps();
  ASSERT_EQ(lines.size(), 6U) << sink_->text();
  EXPECT_TRUE(lines[0].starts_with(fmt::format("symbol {:#x} middle()", address)));
  EXPECT_EQ(lines[3], fmt::format("symbol {:#x}  where=0 /nonexistent/replacement.so", address));
  EXPECT_TRUE(lines[5].starts_with("call #3 "));
}

}  // namespace
}  // namespace rtrace::symbols
