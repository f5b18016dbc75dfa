// The pagemap module's binary attachments, decoded independently of the report's reader, as
// docs/pagemap.md describes them: for the tests to check the files themselves.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace rtrace::test {

struct PagemapFileRange {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::vector<std::uint64_t> words;  // per page (.pagemap, .kpageflags) or bitmap (.zeropages)
};

struct PagemapFile {
  std::string magic;
  std::uint32_t version = 0;
  std::uint32_t page_size = 0;
  std::map<std::uint64_t, PagemapFileRange> ranges;  // by start
  std::string error;                                 // empty when the layout held
};

// `bitmap`: the range's data is ceil(pages / 64) words, else one word per page.
inline PagemapFile decode_pagemap_file(const std::string& bytes, bool bitmap) {
  PagemapFile file;
  const auto u64 = [&](std::size_t at) {
    std::uint64_t value = 0;
    std::memcpy(&value, bytes.data() + at, sizeof value);
    return value;
  };
  if (bytes.size() < 16) {
    file.error = "no header";
    return file;
  }
  file.magic = bytes.substr(0, 8);
  std::memcpy(&file.version, bytes.data() + 8, 4);
  std::memcpy(&file.page_size, bytes.data() + 12, 4);
  std::size_t at = 16;
  while (at < bytes.size() && file.error.empty()) {
    if (bytes.size() - at < 16 || file.page_size == 0) {
      file.error = "truncated range header at " + std::to_string(at);
      break;
    }
    PagemapFileRange range{u64(at), u64(at + 8), {}};
    at += 16;
    const std::uint64_t pages = (range.end - range.start) / file.page_size;
    const std::uint64_t words = bitmap ? (pages + 63) / 64 : pages;
    if ((bytes.size() - at) / 8 < words) {
      file.error = "truncated range data at " + std::to_string(at);
      break;
    }
    for (std::uint64_t i = 0; i < words; ++i, at += 8) {
      range.words.push_back(u64(at));
    }
    file.ranges[range.start] = range;
  }
  return file;
}

inline bool bit(const std::vector<std::uint64_t>& bitmap, std::uint64_t page) {
  return (bitmap[page / 64] >> (page % 64) & 1) != 0;
}

inline constexpr std::uint64_t kPagePresent = std::uint64_t{1} << 63;

}  // namespace rtrace::test
