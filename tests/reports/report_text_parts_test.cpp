// The small parts of the report's text: human units, short templates, allocator families, and
// the allocation sites of a hand-made report (wrappers, inlined frames, caller trees).
#include <gtest/gtest.h>

#include "reports/allocation_sites.h"
#include "reports/allocator_family.h"
#include "reports/frame_text.h"
#include "reports/human_units.h"

namespace rtrace::reports {
namespace {

TEST(HumanUnits, BinaryUnitsWithOneDecimal) {
  EXPECT_EQ(human_bytes(0), "0 B");
  EXPECT_EQ(human_bytes(1023), "1023 B");
  EXPECT_EQ(human_bytes(1024), "1.0 KiB");
  EXPECT_EQ(human_bytes(4096), "4.0 KiB");
  EXPECT_EQ(human_bytes(56'000), "54.7 KiB");
  EXPECT_EQ(human_bytes(8'912'896), "8.5 MiB");
  EXPECT_EQ(human_bytes(1'048'524), "1023.9 KiB");
  EXPECT_EQ(human_bytes(1'048'540), "1.0 MiB");  // never "1024.0 KiB"
  EXPECT_EQ(human_bytes(~std::uint64_t{0}), "16.0 EiB");
  EXPECT_EQ(percent(1, 3), "33.3%");
  EXPECT_EQ(percent(5, 0), "");
}

TEST(HumanUnits, DurationsAsThePageWritesThem) {
  EXPECT_EQ(human_duration(0), "0 ns");
  EXPECT_EQ(human_duration(999), "999 ns");
  EXPECT_EQ(human_duration(1'500), "1.5 µs");
  EXPECT_EQ(human_duration(12'345'678), "12.3 ms");
  EXPECT_EQ(human_duration(3'456'000'000), "3.46 s");
}

TEST(ShortTemplates, ArgumentListsEmptiedOperatorsKept) {
  EXPECT_EQ(shorten_templates("std::vector<int, std::allocator<int> >::push_back(int const&)"),
            "std::vector<>::push_back(int const&)");
  EXPECT_EQ(shorten_templates("std::map<K, std::vector<V> >::operator[](K const&)"),
            "std::map<>::operator[](K const&)");
  EXPECT_EQ(shorten_templates("operator<<(std::ostream&, Foo<int> const&)"),
            "operator<<(std::ostream&, Foo<> const&)");
  EXPECT_EQ(shorten_templates("Ptr<T>::operator->() const"), "Ptr<>::operator->() const");
  EXPECT_EQ(shorten_templates("bool operator< <A>(A, A)"), "bool operator< <>(A, A)");
  EXPECT_EQ(shorten_templates("plain(int) at file.c:3"), "plain(int) at file.c:3");
}

TEST(AllocatorFamily, WhatMismatches) {
  EXPECT_TRUE(
      mismatched(allocation_family("operator new[](unsigned long)"), release_family("free")));
  EXPECT_TRUE(mismatched(allocation_family("operator new[](unsigned long)"),
                         release_family("operator delete(void*)")));
  EXPECT_TRUE(mismatched(allocation_family("malloc"), release_family("operator delete(void*)")));
  EXPECT_TRUE(
      mismatched(allocation_family("operator new(unsigned long)"), release_family("realloc")));
  EXPECT_FALSE(mismatched(allocation_family("calloc"), release_family("realloc")));
  EXPECT_FALSE(mismatched(allocation_family("operator new(unsigned long, std::align_val_t)"),
                          release_family("operator delete(void*, std::align_val_t)")));
  EXPECT_FALSE(mismatched(allocation_family("operator new[](unsigned long)"),
                          release_family("operator delete[](void*, unsigned long)")));
  EXPECT_FALSE(mismatched(allocation_family("open"), release_family("free")));  // not memory
}

// mimalloc, jemalloc and tcmalloc replace the process's malloc: their blocks and malloc's are
// released by either family; two of those libraries, or one of them and C++'s operators, are not.
TEST(AllocatorFamily, TheOtherAllocatorsReplaceMalloc) {
  EXPECT_FALSE(mismatched(allocation_family("mi_malloc"), release_family("free")));
  EXPECT_FALSE(mismatched(allocation_family("malloc"), release_family("mi_free")));
  EXPECT_FALSE(mismatched(allocation_family("mallocx"), release_family("free")));
  EXPECT_FALSE(mismatched(allocation_family("malloc"), release_family("sdallocx")));
  EXPECT_FALSE(mismatched(allocation_family("tc_malloc"), release_family("tc_free_sized")));
  EXPECT_FALSE(mismatched(allocation_family("tc_new"), release_family("operator delete(void*)")));
  EXPECT_FALSE(mismatched(allocation_family("operator new[](unsigned long)"),
                          release_family("tc_deletearray_sized")));
  EXPECT_TRUE(mismatched(allocation_family("mi_malloc"), release_family("tc_free")));
  EXPECT_TRUE(mismatched(allocation_family("mallocx"), release_family("mi_free")));
  EXPECT_TRUE(mismatched(allocation_family("mi_malloc"), release_family("operator delete(void*)")));
  EXPECT_TRUE(mismatched(allocation_family("tc_newarray"), release_family("tc_delete")));
  EXPECT_TRUE(mismatched(allocation_family("tc_new"), release_family("free")));
  EXPECT_EQ(allocator_name(allocation_family("mi_zalloc")), "mimalloc");
  EXPECT_EQ(allocator_name(allocation_family("rallocx")), "jemalloc");
  EXPECT_EQ(allocator_name(allocation_family("tc_memalign")), "tcmalloc");
  EXPECT_EQ(allocator_name(allocation_family("tc_newarray")), "operator new");
  EXPECT_EQ(allocator_name(allocation_family("strdup")), "malloc");
  EXPECT_EQ(allocator_name(allocation_family("open")), "");
}

FrameDetail named(Address address, const std::string& function, std::uint32_t line,
                  std::vector<SourcePosition> inlined_by = {}) {
  return {
      .address = address,
      .module = "/bin/prog",
      .offset = address - 0x400000,
      .symbol = {.module = "/bin/prog",
                 .where = {.function = function, .parameters = "", .file = "prog.c", .line = line},
                 .inlined_by = std::move(inlined_by)}};
}

// A site of `data` allocating from `frames` (innermost first): the frames go into the report's
// tree, each distinct one described once, as the report builder does.
SiteStats stats(ReportData& data, const std::vector<FrameDetail>& frames, std::uint64_t allocations,
                std::uint64_t bytes, std::uint64_t leaked) {
  auto tree = std::make_shared<CallingContextTree>(*data.tree);
  auto descriptions = std::make_shared<FrameDescriptions>(*data.frame_descriptions);
  std::vector<Frame> backtrace;
  for (const FrameDetail& frame : frames) {
    backtrace.push_back(Frame{.address = frame.address});
  }
  const CallingContextTree::NodeId node = tree->intern(backtrace);
  // Frames new to the tree take the next indices, outermost first.
  for (auto frame = frames.rbegin(); frame != frames.rend(); ++frame) {
    if (descriptions->size() < tree->frame_count() &&
        tree->frame(static_cast<std::uint32_t>(descriptions->size())).address == frame->address) {
      descriptions->push_back(FrameDescription{.detail = *frame});
    }
  }
  data.tree = tree;
  data.frame_descriptions = descriptions;
  return SiteStats{.type = 1,
                   .node = node,
                   .allocations = allocations,
                   .bytes_allocated = bytes,
                   .leaked_blocks = leaked == 0 ? 0U : 1U,
                   .leaked_bytes = leaked};
}

TEST(AllocationSites, WrappersSkippedCallersMergedIntoATree) {
  ReportData data;
  // g_malloc (a wrapper) inlined into load(), called from two lines of main.
  const FrameDetail wrapper =
      named(0x401000, "g_malloc", 5,
            {{.function = "load", .parameters = "", .file = "prog.c", .line = 12}});
  data.sites.push_back(stats(data, {wrapper, named(0x402000, "main", 30)}, 2, 200, 100));
  data.sites.push_back(stats(data, {wrapper, named(0x402100, "main", 31)}, 1, 50, 0));
  data.sites.push_back(stats(data, {named(0x403000, "other", 7)}, 1, 10, 0));

  std::vector<AllocationSite> sites = allocation_sites(data, {"g_*"});
  ASSERT_EQ(sites.size(), 2U);
  EXPECT_EQ(sites[0].frame.label, "load at prog.c:12");
  EXPECT_FALSE(sites[0].frame.inlined);
  EXPECT_EQ(
      sites[0].amounts,
      (SiteAmounts{
          .allocations = 3, .bytes_allocated = 250, .leaked_blocks = 1, .leaked_bytes = 100}));
  ASSERT_EQ(sites[0].callers.size(), 2U);
  EXPECT_EQ(sites[0].callers[0].frame->label, "main at prog.c:30");  // leaked the most
  EXPECT_EQ(sites[0].callers[1].frame->label, "main at prog.c:31");
  EXPECT_EQ(sites[1].frame.label, "other at prog.c:7");

  // Without the wrapper pattern, the wrapper is the site, shown as inlined into load().
  sites = allocation_sites(data, {});
  EXPECT_EQ(sites[0].frame.label, "g_malloc at prog.c:5 [inlined]");
  EXPECT_TRUE(sites[0].frame.inlined);
  ASSERT_EQ(sites[0].callers.size(), 1U);
  EXPECT_EQ(sites[0].callers[0].frame->label, "load at prog.c:12");
  EXPECT_EQ(sites[0].callers[0].callers.size(), 2U);
}

TEST(AllocationSites, CallerTreesOnlyForTheSitesShown) {
  ReportData data;
  data.sites.push_back(
      stats(data, {named(0x403000, "small", 7), named(0x402000, "main", 30)}, 1, 10, 0));
  data.sites.push_back(
      stats(data, {named(0x401000, "big", 5), named(0x402100, "main", 31)}, 1, 90, 0));
  data.sites.push_back(
      stats(data, {named(0x401000, "big", 5), named(0x402200, "main", 32)}, 1, 80, 0));

  const std::vector<AllocationSite> all = allocation_sites(data, {});
  const std::vector<AllocationSite> first = allocation_sites(data, {}, 1);
  ASSERT_EQ(first.size(), all.size());
  ASSERT_EQ(first.size(), 2U);
  // The same sites in the same order; the first with its whole tree, the other with none.
  EXPECT_EQ(first[0].frame.label, "big at prog.c:5");
  EXPECT_EQ(first[0].amounts, all[0].amounts);
  ASSERT_EQ(first[0].callers.size(), 2U);
  EXPECT_EQ(first[0].callers[0].frame->label, "main at prog.c:31");
  EXPECT_EQ(first[0].callers[1].frame->label, "main at prog.c:32");
  EXPECT_EQ(first[1].frame.label, "small at prog.c:7");
  EXPECT_EQ(first[1].amounts, all[1].amounts);
  EXPECT_EQ(all[1].callers.size(), 1U);
  EXPECT_TRUE(first[1].callers.empty());
}

TEST(FrameKey, ModuleOffsetElseNamesElseAddress) {
  EXPECT_EQ(frame_key(named(0x401234, "f", 3)), "/bin/prog+0x1234");
  FrameDetail no_maps = named(0x401234, "f", 3);
  no_maps.offset.reset();
  EXPECT_EQ(frame_key(no_maps), "f at prog.c:3\n");
  EXPECT_EQ(frame_key(FrameDetail{.address = 0x1234}), "0x1234");
}

}  // namespace
}  // namespace rtrace::reports
