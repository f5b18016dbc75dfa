// The pagemap module's snapshot writer on its own, in this process: the documented layout for a
// mapping the test made, an unreadable /proc/kpageflags (the tests run as root, where the real
// one is readable), files that already exist or are symbolic links (never overwritten, never
// followed), and a directory that is not there.
#include "tracer/modules/pagemap/pagemap_writer.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "pagemap_files.h"
#include "support/test_paths.h"

namespace rtrace::test {
namespace {

namespace fs = std::filesystem;
using tracer::PagemapSources;
using tracer::write_pagemap_snapshot;

std::vector<std::pair<std::string, std::string>> g_attached;

void remember(const char* name, const char* file) {
  g_attached.emplace_back(name, file);
}

std::size_t page_size() {
  return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

// Eight pages between two inaccessible ones (so that they are a mapping of their own): pages 0
// and 1 written non-zero, 2 and 3 written with zeros, 4 only read (the shared zero page), 5 to
// 7 never touched.
class TestMapping {
 public:
  TestMapping() {
    void* area = ::mmap(nullptr, 10 * page_size(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(area, MAP_FAILED);
    base_ = static_cast<char*>(area);
    pages_ = base_ + page_size();
    EXPECT_EQ(::mprotect(pages_, 8 * page_size(), PROT_READ | PROT_WRITE), 0);
    std::memset(pages_, 0x11, 2 * page_size());
    std::memset(pages_ + 2 * page_size(), 0, 2 * page_size());
    read_byte_ = *static_cast<volatile char*>(pages_ + 4 * page_size());
  }
  TestMapping(const TestMapping&) = delete;
  TestMapping& operator=(const TestMapping&) = delete;
  ~TestMapping() { ::munmap(base_, 10 * page_size()); }
  std::uint64_t start() const { return reinterpret_cast<std::uintptr_t>(pages_); }
  std::uint64_t end() const { return start() + 8 * page_size(); }

 private:
  char* base_ = nullptr;
  char* pages_ = nullptr;
  char read_byte_ = 0;
};

std::string file_name(const std::string& stem, const char* suffix) {
  return std::to_string(::getpid()) + "-" + stem + suffix;
}

TEST(PagemapWriter, WritesTheDocumentedLayoutAndLeavesOutAnUnreadableKpageflags) {
  const ScratchDir dir;
  const TestMapping mapping;
  g_attached.clear();
  PagemapSources sources;
  sources.kpageflags = "/nonexistent/kpageflags";
  const int written = write_pagemap_snapshot(
      dir.path().c_str(), static_cast<std::uint64_t>(::getpid()), page_size(), sources, remember);
  EXPECT_EQ(written, 3);
  const std::vector<std::pair<std::string, std::string>> expected{
      {"maps", file_name("0", ".maps")},
      {"pagemap", file_name("0", ".pagemap")},
      {"zeropages", file_name("0", ".zeropages")}};
  EXPECT_EQ(g_attached, expected);
  EXPECT_FALSE(fs::exists(dir / file_name("0", ".kpageflags")));

  // The maps copy lists the mapping as private writable.
  char range[64];
  std::snprintf(range, sizeof range, "%lx-%lx rw-p ", static_cast<unsigned long>(mapping.start()),
                static_cast<unsigned long>(mapping.end()));
  EXPECT_NE(read_file(dir / file_name("0", ".maps")).find(range), std::string::npos);

  const PagemapFile pagemap =
      decode_pagemap_file(read_file(dir / file_name("0", ".pagemap")), false);
  ASSERT_EQ(pagemap.error, "");
  EXPECT_EQ(pagemap.magic, "RTPAGEMP");
  EXPECT_EQ(pagemap.version, 1U);
  EXPECT_EQ(pagemap.page_size, page_size());
  ASSERT_EQ(pagemap.ranges.count(mapping.start()), 1U);
  const PagemapFileRange& entries = pagemap.ranges.at(mapping.start());
  EXPECT_EQ(entries.end, mapping.end());
  ASSERT_EQ(entries.words.size(), 8U);
  for (std::size_t page = 0; page < 8; ++page) {
    EXPECT_EQ((entries.words[page] & kPagePresent) != 0, page < 5) << "page " << page;
  }

  const PagemapFile zero = decode_pagemap_file(read_file(dir / file_name("0", ".zeropages")), true);
  ASSERT_EQ(zero.error, "");
  EXPECT_EQ(zero.magic, "RTZEROPG");
  ASSERT_EQ(zero.ranges.count(mapping.start()), 1U);
  const std::vector<std::uint64_t>& bitmap = zero.ranges.at(mapping.start()).words;
  ASSERT_EQ(bitmap.size(), 1U);
  EXPECT_EQ(bitmap[0], 0b11100U);  // pages 2, 3 (zeros written) and 4 (the zero page, read)
  // Every range of one file is in the other, in the same order.
  ASSERT_EQ(zero.ranges.size(), pagemap.ranges.size());
}

TEST(PagemapWriter, NeverOverwritesNorFollowsSymbolicLinks) {
  const ScratchDir dir;
  const ScratchDir elsewhere;
  write_file(dir / file_name("0", ".maps"), "someone else's\n");
  // The next stem's pagemap name is taken by a link to a file that must stay as it is.
  write_file(elsewhere / "victim", "untouched");
  fs::create_symlink(elsewhere / "victim", dir / file_name("1", ".pagemap"));
  g_attached.clear();
  PagemapSources sources;
  sources.kpageflags = "/nonexistent/kpageflags";
  const int written = write_pagemap_snapshot(
      dir.path().c_str(), static_cast<std::uint64_t>(::getpid()), page_size(), sources, remember);
  EXPECT_EQ(written, 2);
  const std::vector<std::pair<std::string, std::string>> expected{
      {"maps", file_name("1", ".maps")}, {"zeropages", file_name("1", ".zeropages")}};
  EXPECT_EQ(g_attached, expected);
  EXPECT_EQ(read_file(dir / file_name("0", ".maps")), "someone else's\n");
  EXPECT_EQ(read_file(elsewhere / "victim"), "untouched");
  EXPECT_TRUE(fs::is_symlink(dir / file_name("1", ".pagemap")));
}

TEST(PagemapWriter, WritesNothingWithoutItsDirectoryOrSources) {
  const ScratchDir dir;
  g_attached.clear();
  EXPECT_EQ(
      write_pagemap_snapshot((dir / "missing").c_str(), 1, page_size(), PagemapSources{}, remember),
      0);
  PagemapSources no_maps;
  no_maps.maps = "/nonexistent/maps";
  EXPECT_EQ(write_pagemap_snapshot(dir.path().c_str(), 1, page_size(), no_maps, remember), 0);
  // Without a page map only the maps copy.
  PagemapSources no_pagemap;
  no_pagemap.pagemap = "/nonexistent/pagemap";
  EXPECT_EQ(write_pagemap_snapshot(dir.path().c_str(), 1, page_size(), no_pagemap, remember), 1);
  EXPECT_EQ(write_pagemap_snapshot(dir.path().c_str(), 1, 3000, PagemapSources{}, remember), 0);
  const std::vector<std::pair<std::string, std::string>> expected{{"maps", "1-0.maps"}};
  EXPECT_EQ(g_attached, expected);
  EXPECT_TRUE(fs::exists(dir / "1-0.maps"));
  EXPECT_FALSE(fs::exists(dir / "1-0.pagemap"));
}

}  // namespace
}  // namespace rtrace::test
