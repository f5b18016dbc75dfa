#include "reports/report_builder.h"

#include <gtest/gtest.h>

#include "filters/stage_test_support.h"
#include "reports/report_diff.h"
#include "reports/report_sections.h"
#include "reports/text_report.h"

namespace rtrace::reports {
namespace {

using test::TraceBuilder;

ReportData report_of(const TraceBuilder& trace,
                     std::shared_ptr<const SuppressionRules> suppressions = nullptr,
                     const std::vector<ResourceType>& types = {TraceBuilder::memory_type()}) {
  ReportBuilder builder(std::move(suppressions));
  builder.mapping({.from = 0x400000, .to = 0x500000, .path = "/bin/prog"});
  trace.push(builder, types);
  return builder.data();
}

// Site A (frame 0x401000) allocates and frees, site B (0x402000) leaks.
TraceBuilder sample() {
  TraceBuilder trace;
  trace.alloc(1, 0x10, 100, {0x401000})
      .release(2, 0x10)  // temporary: released by the very next call
      .alloc(3, 0x20, 300, {0x401000})
      .alloc(4, 0x30, 50, {0x402000})
      .release(5, 0x20)  // peak (350) was reached at call 4
      .alloc(6, 0x40, 20, {0x402000});
  return trace;
}

TEST(ReportBuilder, TotalsPeakLeaksAndTemporaries) {
  const ReportData data = report_of(sample());
  EXPECT_EQ(data.process, "./prog");
  EXPECT_EQ(data.calls, 6U);
  ASSERT_EQ(data.types.size(), 1U);
  const TypeTotals& memory = data.types[0];
  EXPECT_EQ(memory.allocations, 4U);
  EXPECT_EQ(memory.releases, 2U);
  EXPECT_EQ(memory.bytes_allocated, 470U);
  EXPECT_EQ(memory.temporary, 1U);
  EXPECT_EQ(memory.peak_bytes, 350U);
  EXPECT_EQ(memory.peak_index, 4U);
  EXPECT_EQ(memory.leaked_blocks, 2U);
  EXPECT_EQ(memory.leaked_bytes, 70U);
  EXPECT_EQ(memory.histogram[7], 1U);  // 100 in [64, 128)
  EXPECT_EQ(memory.histogram[9], 1U);  // 300 in [256, 512)

  ASSERT_EQ(data.sites.size(), 2U);
  const SiteStats& a = data.sites[0];
  EXPECT_EQ(data.frame_names(a), (FrameNames{"0x401000 in /bin/prog"}));
  EXPECT_EQ(a.allocations, 2U);
  EXPECT_EQ(a.temporary, 1U);
  EXPECT_EQ(a.leaked_blocks, 0U);
  EXPECT_EQ(a.peak_bytes, 300U);  // held at the peak, freed later
  const SiteStats& b = data.sites[1];
  EXPECT_EQ(b.leaked_blocks, 2U);
  EXPECT_EQ(b.leaked_bytes, 70U);
  EXPECT_EQ(b.peak_bytes, 50U);  // its second block came after the peak
}

// free(NULL) releases nothing: a null release, never a release nor an error.
TEST(ReportBuilder, NullReleasesAreCountedApart) {
  TraceBuilder trace;
  trace.alloc(1, 0x10, 8, {0x401000}).release(2, 0x0).release(3, 0x10).release(4, 0x0);
  const ReportData data = report_of(trace);
  EXPECT_EQ(data.types[0].calls, 4U);
  EXPECT_EQ(data.types[0].releases, 1U);
  EXPECT_EQ(data.types[0].null_releases, 2U);
  EXPECT_TRUE(data.invalid_releases.empty());
}

// A block released twice is a double free, with its size and allocation site; an address never
// allocated is an error of its own; releasing an address again after it was allocated anew is
// no error. The same error repeated is one entry counted twice.
TEST(ReportBuilder, DoubleFreesAndReleasesOfAddressesNeverAllocated) {
  TraceBuilder trace;
  trace.alloc(1, 0x10, 24, {0x401000})
      .release(2, 0x10)
      .release(3, 0x10)  // double free
      .release(4, 0x10)  // and again: the same entry
      .alloc(5, 0x10, 8, {0x402000})
      .release(6, 0x10)     // a new block: no error
      .release(7, 0x7ff0);  // never allocated
  const ReportData data = report_of(trace);
  EXPECT_EQ(data.types[0].releases, 5U);
  ASSERT_EQ(data.invalid_releases.size(), 2U);
  const InvalidRelease& twice = data.invalid_releases[0];
  EXPECT_EQ(twice.cause, InvalidRelease::Cause::AlreadyReleased);
  EXPECT_EQ(twice.id, 0x10U);
  EXPECT_EQ(twice.first_call, 3U);
  EXPECT_EQ(twice.count, 2U);
  EXPECT_EQ(twice.size, 24U);
  EXPECT_EQ(twice.released_by, "free");
  ASSERT_TRUE(twice.site.has_value());
  EXPECT_EQ(data.frame_names(data.sites[*twice.site]), (FrameNames{"0x401000 in /bin/prog"}));
  const InvalidRelease& never = data.invalid_releases[1];
  EXPECT_EQ(never.cause, InvalidRelease::Cause::NeverAllocated);
  EXPECT_EQ(never.id, 0x7ff0U);
  EXPECT_EQ(never.first_call, 7U);
  EXPECT_FALSE(never.site.has_value());

  const std::string text = render_text(data, nullptr, {});
  const std::size_t errors = text.find("\nERRORS (releases memcheck reports, by its names)\n");
  ASSERT_NE(errors, std::string::npos) << text;
  EXPECT_EQ(text.substr(errors, text.find("\n\n", errors + 1) - errors),
            "\nERRORS (releases memcheck reports, by its names)\n"
            "  Invalid free() / delete / delete[] / realloc(): 3 error(s)\n"
            "    free of 0x10 (call 3): a block of 24 bytes released before (double free), 2 "
            "time(s)\n"
            "     released at:\n"
            "      (no backtrace)\n"
            "     first released at:\n"
            "      (no backtrace)\n"
            "     allocated at:\n"
            "      0x401000 in /bin/prog\n"
            "    free of 0x7ff0 (call 7): never allocated (not a heap block's start), 1 time(s)\n"
            "     released at:\n"
            "      (no backtrace)");
}

// Only the memory type's releases are errors: a descriptor closed twice, or fd 0 closed, is not.
TEST(ReportBuilder, OtherTypesHaveNoReleaseErrors) {
  const ResourceType fd{.id = 1, .flags = 0, .type = "fd", .description = "file descriptor"};
  TraceBuilder trace;
  trace.alloc(1, 3, 1, {0x401000}).release(2, 3).release(3, 3).release(4, 0);
  const ReportData data = report_of(trace, {}, {fd});
  EXPECT_TRUE(data.invalid_releases.empty());
  EXPECT_EQ(data.types[0].releases, 3U);
  EXPECT_EQ(data.types[0].null_releases, 0U);
}

TEST(ReportBuilder, RefcountedTypesReleaseOnTheLastReference) {
  const ResourceType segment{
      .id = 1, .flags = ResourceType::kRefcount, .type = "segment", .description = "seg"};
  TraceBuilder trace;
  trace.alloc(1, 0xa, 4096, {0x401000}).alloc(2, 0xa, 4096, {0x401000}).release(3, 0xa);
  const ReportData data = report_of(trace, {}, {segment});
  EXPECT_EQ(data.types[0].leaked_blocks, 1U);
  EXPECT_EQ(data.types[0].peak_bytes, 4096U);
  EXPECT_EQ(data.types[0].temporary, 0U);
}

TEST(ReportBuilder, SuppressedLeaksAreCountedApartByRule) {
  auto rules = std::make_shared<SuppressionRules>();
  rules->add("# ours\nleak:^nothing$\nleak:/bin/pro*\n", "supp");
  const ReportData data = report_of(sample(), rules);
  EXPECT_EQ(data.types[0].leaked_blocks, 0U);
  EXPECT_EQ(data.suppressed_blocks, 2U);
  EXPECT_EQ(data.suppressed_bytes, 70U);
  ASSERT_EQ(data.suppression_hits.size(), 1U);
  EXPECT_EQ(data.suppression_hits[0].pattern, "/bin/pro*");
  EXPECT_EQ(data.suppression_hits[0].source, "supp");
  EXPECT_EQ(data.suppression_hits[0].line, 3U);
  EXPECT_EQ(data.suppression_hits[0].blocks, 2U);
  EXPECT_EQ(data.suppression_hits[0].bytes, 70U);
  EXPECT_TRUE(leak_sites(data, 10).empty());
}

TEST(ReportBuilder, TypeIdsFromTheInputAreNotTableSizes) {
  // A hostile trace may name any type id; it is counted under a made-up name, nothing sized by it.
  TraceBuilder trace;
  trace.alloc(1, 0x10, 8, {0x401000}, 0xffffffffU).release(2, 0x10, 0xffffffffU);
  const ReportData data = report_of(trace);
  ASSERT_EQ(data.types.size(), 2U);
  EXPECT_EQ(data.types[1].type.type, "type4294967295");
  EXPECT_EQ(data.types[1].allocations, 1U);
  EXPECT_EQ(data.types[1].temporary, 1U);
  EXPECT_EQ(data.types[0].allocations, 0U);
}

TEST(ReportDiff, ShowsWhatGrew) {
  TraceBuilder baseline;
  baseline.alloc(1, 0x10, 50, {0x402000});
  const ReportDiff diff = diff_reports(report_of(sample()), report_of(baseline));
  ASSERT_EQ(diff.types.size(), 1U);
  EXPECT_EQ(diff.types[0].growth.leaked_bytes, 20);
  EXPECT_EQ(diff.types[0].growth.allocations, 3);
  ASSERT_EQ(diff.sites.size(), 2U);
  EXPECT_EQ(diff.sites[0].frame_names, (std::vector<std::string>{"0x402000 in /bin/prog"}));
  EXPECT_EQ(diff.sites[0].growth.leaked_bytes, 20);
  EXPECT_EQ(diff.sites[1].growth.bytes_allocated, 400);
}

TEST(TextReport, ExactLayout) {
  const std::string text = render_text(report_of(sample()), nullptr, {.top = 1});
  EXPECT_EQ(
      text,
      "rtrace report: ./prog (pid 7), 6 calls\n"
      "command line: ./prog (arguments are not recorded)\n"
      "peak RSS: not recorded (only rtrace's tracer records it)\n"
      "heap statistics: none in the trace\n"
      "\n"
      "TOTALS\n"
      "  memory (memory allocation in bytes): 6 calls, 4 allocations of 470 bytes, 2 "
      "releases, 1 temporary\n"
      "\n"
      "PEAK CONSUMPTION\n"
      "  memory: 350 bytes alive after call 4\n"
      "    300 bytes held from:\n"
      "      0x401000 in /bin/prog\n"
      "\n"
      "LEAKS\n"
      "  memory: 2 block(s) leaked, 70 bytes\n"
      "    70 bytes in 2 block(s) of memory from:\n"
      "      0x402000 in /bin/prog\n"
      "\n"
      "ALLOCATION SITES (the first frame outside the allocator and wrappers, its callers "
      "beneath)\n"
      "  memory: 2 site(s), the first 1\n"
      "    /bin/prog+0x1000\n"
      "      2 allocation(s), 400 B (85.1%) allocated, peak 300 B (85.7%), leaked 0 B (0.0%) in "
      "0 block(s)\n"
      "\n"
      "MISMATCHED RELEASES (released by another allocator family)\n"
      "  none\n"
      "\n"
      "MOST ALLOCATING BACKTRACES\n"
      "    2 allocations of 400 bytes (memory) from:\n"
      "      0x401000 in /bin/prog\n"
      "\n"
      "TEMPORARY ALLOCATIONS (released by the very next call)\n"
      "    1 of 2 allocations (memory) from:\n"
      "      0x401000 in /bin/prog\n"
      "\n"
      "ALLOCATION SIZES\n"
      "  memory:\n"
      "                   16-31          1 ########################################\n"
      "                   32-63          1 ########################################\n"
      "                  64-127          1 ########################################\n"
      "                 256-511          1 ########################################\n");
}

// The memtransfer module's type counts what moved: each transfer an allocation of its
// destination, released at once by rtrace's tracer (call 2) and never by the original's (calls 3
// and 4). Neither is held: no peak, no leaks, nothing temporary, in every renderer's lists.
TEST(TextReport, TransfersCountWhatMovedNotWhatIsHeld) {
  const ResourceType transfers{.id = 1,
                               .flags = 0,
                               .type = "memtransfer",
                               .description = "memory transfer operations in bytes"};
  TraceBuilder trace;
  trace.alloc(1, 0x10, 100, {0x401000})
      .release(2, 0x10)
      .alloc(3, 0x20, 300, {0x401000})
      .alloc(4, 0x30, 50, {0x402000});
  const ReportData data = report_of(trace, {}, {transfers});
  EXPECT_TRUE(leak_sites(data, 10).empty());
  EXPECT_TRUE(temporary_sites(data, 10).empty());
  EXPECT_TRUE(peak_sites(data, 1, 10).empty());
  EXPECT_EQ(data.types[0].leaked_blocks, 2U);  // what the -l filter of the original counts
  EXPECT_EQ(
      render_text(data, nullptr, {.top = 1}),
      "rtrace report: ./prog (pid 7), 4 calls\n"
      "command line: ./prog (arguments are not recorded)\n"
      "peak RSS: not recorded (only rtrace's tracer records it)\n"
      "heap statistics: none in the trace\n"
      "\n"
      "TOTALS\n"
      "  memtransfer (memory transfer operations in bytes): 4 calls, 3 transfer(s) of 450 bytes\n"
      "\n"
      "PEAK CONSUMPTION\n"
      "  memtransfer: transfers, nothing held\n"
      "\n"
      "LEAKS\n"
      "  memtransfer: transfers, never leaks\n"
      "\n"
      "ALLOCATION SITES (the first frame outside the allocator and wrappers, its callers "
      "beneath)\n"
      "  memtransfer: 2 site(s), the first 1\n"
      "    /bin/prog+0x1000\n"
      "      2 transfer(s), 400 B (88.9%) transferred\n"
      "\n"
      "MISMATCHED RELEASES (released by another allocator family)\n"
      "  none\n"
      "\n"
      "MOST ALLOCATING BACKTRACES\n"
      "    2 transfers of 400 bytes (memtransfer) from:\n"
      "      0x401000 in /bin/prog\n"
      "\n"
      "TEMPORARY ALLOCATIONS (released by the very next call)\n"
      "\n"
      "ALLOCATION SIZES\n"
      "  memtransfer:\n"
      "                   32-63          1 ########################################\n"
      "                  64-127          1 ########################################\n"
      "                 256-511          1 ########################################\n");
}

// A type counted, not weighed (every size 1: descriptors), speaks of its resources at every
// site; types without a call are named once, in TOTALS, and left out of the sections after it.
TEST(TextReport, CountedTypesAndTypesWithoutCalls) {
  const ResourceType fd{.id = 1, .flags = 0, .type = "fd", .description = "file descriptor"};
  const ResourceType unused{
      .id = 2, .flags = 0, .type = "segment", .description = "shared memory segment"};
  TraceBuilder trace;
  trace.alloc(1, 3, 1, {0x401000}).alloc(2, 4, 1, {0x401000}).release(3, 3);
  const std::string text = render_text(report_of(trace, {}, {fd, unused}), nullptr, {.top = 1});
  const std::size_t peak = text.find("\nPEAK CONSUMPTION\n");
  ASSERT_NE(peak, std::string::npos) << text;
  EXPECT_EQ(text.substr(text.find("TOTALS\n"), peak - text.find("TOTALS\n")),
            "TOTALS\n"
            "  fd (file descriptor): 3 calls, 2 allocations, 1 releases, 0 temporary\n"
            "  no calls: segment\n");
  EXPECT_EQ(text.find("segment", peak), std::string::npos) << text;
  EXPECT_NE(text.find("  fd: 2 descriptor(s) alive after call 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n      2 allocation(s), peak 2 descriptor(s), leaked 1 descriptor(s)\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace rtrace::reports
