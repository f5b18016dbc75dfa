#include "reports/pagemap_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <system_error>

#include "io/proc_maps_line.h"
#include "protocol/pagemap_layout.h"
#include "reports/human_units.h"

namespace rtrace::reports {
namespace {

namespace fs = std::filesystem;
namespace layout = rtrace::pagemap;

// A damaged attachment: the message names the file and the byte offset.
class DamagedFile : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads one binary attachment front to back, checking every size against what is left of the
// file before reading (a hostile header never makes us allocate or loop by its numbers).
class BinaryAttachment {
 public:
  BinaryAttachment(const fs::path& path, std::string shown)
      : in_(path, std::ios::binary), shown_(std::move(shown)) {
    std::error_code error;
    size_ = fs::file_size(path, error);
    if (!in_ || error) {
      throw DamagedFile(fmt::format("{}: cannot be read", shown_));
    }
  }

  std::uint64_t offset() const { return offset_; }
  std::uint64_t left() const { return size_ - offset_; }
  [[noreturn]] void fail(std::uint64_t at, const std::string& what) const {
    throw DamagedFile(fmt::format("{}:{}: {}", shown_, at, what));
  }

  void read(void* out, std::size_t bytes, const char* what) {
    if (left() < bytes || !in_.read(static_cast<char*>(out), static_cast<std::streamsize>(bytes))) {
      fail(offset_, fmt::format("truncated {}", what));
    }
    offset_ += bytes;
  }
  std::uint64_t u64(const char* what) {
    std::array<unsigned char, 8> bytes{};
    read(bytes.data(), bytes.size(), what);
    std::uint64_t value = 0;
    for (std::size_t i = bytes.size(); i-- > 0;) {
      value = value << 8 | bytes[i];  // little-endian (pagemap_layout.h)
    }
    return value;
  }

  // The header: magic, version, page size; returns the page size.
  std::uint64_t header(const char* magic) {
    std::array<char, layout::kFileHeaderSize> bytes{};
    read(bytes.data(), bytes.size(), "header");
    if (std::memcmp(bytes.data(), magic, layout::kMagicSize) != 0) {
      fail(0, fmt::format("not a {} file (no {} magic)", shown_kind(magic), magic));
    }
    const auto word = [&](std::size_t at) {
      std::uint32_t value = 0;
      for (std::size_t i = 4; i-- > 0;) {
        value = value << 8 | static_cast<unsigned char>(bytes[at + i]);
      }
      return value;
    };
    if (word(8) != layout::kVersion) {
      fail(8, fmt::format("version {} (this reader knows {})", word(8), layout::kVersion));
    }
    const std::uint32_t page_size = word(12);
    if (page_size < 512 || page_size > 1U << 20 || !std::has_single_bit(page_size)) {
      fail(12, fmt::format("page size {} is not a power of two from 512 to 1 MiB", page_size));
    }
    return page_size;
  }

  // A range header; checks that its `per_page` (or bitmap) data fits in the file.
  struct Range {
    std::uint64_t start = 0;
    std::uint64_t pages = 0;
  };
  Range range(std::uint64_t page_size, std::uint64_t data_bytes_per_page, bool bitmap) {
    const std::uint64_t at = offset_;
    const std::uint64_t start = u64("range header");
    const std::uint64_t end = u64("range header");
    if (end <= start || start % page_size != 0 || (end - start) % page_size != 0) {
      fail(at, fmt::format("range {:#x}-{:#x} is not whole pages", start, end));
    }
    const std::uint64_t pages = (end - start) / page_size;
    const std::uint64_t words = layout::bitmap_words(pages);
    const bool fits = bitmap ? words <= left() / 8 : pages <= left() / data_bytes_per_page;
    if (!fits) {
      fail(at, fmt::format("range {:#x}-{:#x} has {} pages, more than the rest of the file holds",
                           start, end, pages));
    }
    return {start, pages};
  }

  // Reads `words` 64-bit words in chunks; calls `each` with every one.
  template <typename Each>
  void words(std::uint64_t count, Each&& each) {
    std::array<unsigned char, std::size_t{8} * 4096> chunk{};
    while (count > 0) {
      const std::uint64_t now = std::min<std::uint64_t>(count, chunk.size() / 8);
      read(chunk.data(), now * 8, "page data");
      for (std::uint64_t i = 0; i < now; ++i) {
        std::uint64_t value = 0;
        for (std::size_t b = 8; b-- > 0;) {
          value = value << 8 | chunk[i * 8 + b];
        }
        each(value);
      }
      count -= now;
    }
  }

 private:
  static std::string shown_kind(const char* magic) {
    return magic == layout::kPagemapMagic ? "pagemap" : "zero-page";
  }

  std::ifstream in_;
  std::string shown_;
  std::uint64_t size_ = 0;
  std::uint64_t offset_ = 0;
};

// The attachments of the pagemap module, by name, as files in the trace's directory.
struct PagemapFiles {
  std::optional<std::string> maps;
  std::optional<std::string> pagemap;
  std::optional<std::string> zeropages;
};

// Resident pages of every range of the .pagemap file, in file order, into `mappings` (the
// ranges before a damage stay).
void read_pagemap(const fs::path& path, const std::string& shown, std::uint64_t& page_size,
                  std::vector<PagemapMapping>& mappings) {
  BinaryAttachment file(path, shown);
  page_size = file.header(layout::kPagemapMagic);
  while (file.left() > 0) {
    const auto range = file.range(page_size, 8, false);
    PagemapMapping mapping;
    mapping.start = range.start;
    mapping.end = range.start + range.pages * page_size;
    mapping.pages = range.pages;
    file.words(range.pages, [&](std::uint64_t entry) {
      mapping.resident += (entry & layout::kPresent) != 0 ? 1 : 0;
    });
    mappings.push_back(std::move(mapping));
  }
}

// All-zero resident pages of every range of the .zeropages file, by start address.
void read_zeropages(const fs::path& path, const std::string& shown, std::uint64_t page_size,
                    std::map<std::uint64_t, std::uint64_t>& zero) {
  BinaryAttachment file(path, shown);
  if (file.header(layout::kZeropagesMagic) != page_size) {
    file.fail(12, "page size differs from the pagemap file's");
  }
  while (file.left() > 0) {
    const auto range = file.range(page_size, 0, true);
    std::uint64_t count = 0;
    std::uint64_t word_index = 0;
    const std::uint64_t words = layout::bitmap_words(range.pages);
    file.words(words, [&](std::uint64_t word) {
      // Bits past the range's last page are not pages: a well-formed file leaves them clear.
      const std::uint64_t valid = range.pages - word_index * 64;
      if (valid < 64) {
        word &= (std::uint64_t{1} << valid) - 1;
      }
      count += static_cast<std::uint64_t>(std::popcount(word));
      ++word_index;
    });
    zero[range.start] = count;
  }
}

// "start-end perms offset dev inode   path" lines: permissions and path by start address.
void read_maps(const fs::path& path, const std::string& shown,
               std::vector<PagemapMapping>& mappings) {
  std::ifstream in(path);
  if (!in) {
    throw DamagedFile(fmt::format("{}: cannot be read", shown));
  }
  std::map<std::uint64_t, PagemapMapping*> by_start;
  for (PagemapMapping& mapping : mappings) {
    by_start[mapping.start] = &mapping;
  }
  std::string line;
  while (std::getline(in, line)) {
    const std::optional<ProcMapsLine> parsed = parse_proc_maps_line(line);
    if (!parsed) {
      continue;  // not a maps line: nothing to take from it
    }
    const auto found = by_start.find(parsed->start);
    if (found == by_start.end()) {
      continue;
    }
    found->second->permissions = parsed->permissions;
    found->second->path = parsed->path;
  }
}

// A FILE packet's path, as a file in `directory`: only plain names (the protocol keeps
// attachments beside the trace; a path elsewhere would read files the trace has no business
// naming).
std::optional<fs::path> attachment_file(const std::string& name, const fs::path& directory,
                                        std::vector<std::string>& problems) {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
    problems.push_back(
        fmt::format("{}: not a file name beside the trace: not read", name.empty() ? "''" : name));
    return std::nullopt;
  }
  const fs::path path = directory / name;
  std::error_code error;
  if (fs::is_symlink(fs::symlink_status(path, error))) {
    problems.push_back(
        fmt::format("{}: a symbolic link, not the module's file: not followed", path.string()));
    return std::nullopt;
  }
  if (!fs::is_regular_file(path, error)) {
    problems.push_back(
        fmt::format("{}: missing (the trace names it as an attachment)", path.string()));
    return std::nullopt;
  }
  return path;
}

PagemapFiles pagemap_files(const std::vector<Attachment>& attachments) {
  PagemapFiles files;
  for (const Attachment& a : attachments) {  // the last of each name: the end of the trace
    if (a.name == layout::kMapsName) {
      files.maps = a.path;
    } else if (a.name == layout::kPagemapName) {
      files.pagemap = a.path;
    } else if (a.name == layout::kZeropagesName) {
      files.zeropages = a.path;
    }
  }
  return files;
}

}  // namespace

std::optional<PagemapSummary> read_pagemap_attachments(const std::vector<Attachment>& attachments,
                                                       const fs::path& trace_directory) {
  const PagemapFiles files = pagemap_files(attachments);
  if (!files.maps && !files.pagemap && !files.zeropages) {
    return std::nullopt;
  }
  PagemapSummary summary;
  auto& problems = summary.problems;
  if (!files.pagemap) {
    problems.emplace_back("the trace names no pagemap attachment: no page counts");
    return summary;
  }
  const std::optional<fs::path> pagemap =
      attachment_file(*files.pagemap, trace_directory, problems);
  if (!pagemap) {
    return summary;
  }
  try {
    read_pagemap(*pagemap, pagemap->string(), summary.page_size, summary.mappings);
  } catch (const DamagedFile& damage) {
    problems.emplace_back(damage.what());  // the ranges before the damage are still shown
  }
  if (files.zeropages) {
    if (const auto zeropages = attachment_file(*files.zeropages, trace_directory, problems)) {
      std::map<std::uint64_t, std::uint64_t> zero;
      try {
        read_zeropages(*zeropages, zeropages->string(), summary.page_size, zero);
      } catch (const DamagedFile& damage) {
        problems.emplace_back(damage.what());  // the ranges before the damage still count
      }
      for (PagemapMapping& mapping : summary.mappings) {
        if (const auto found = zero.find(mapping.start); found != zero.end()) {
          mapping.zero = found->second;
        }
      }
    }
  } else {
    problems.emplace_back("the trace names no zeropages attachment: no all-zero page counts");
  }
  if (files.maps) {
    if (const auto maps = attachment_file(*files.maps, trace_directory, problems)) {
      try {
        read_maps(*maps, maps->string(), summary.mappings);
      } catch (const DamagedFile& damage) {
        problems.emplace_back(damage.what());
      }
    }
  }
  return summary;
}

fs::path attachment_directory(const std::string& trace_path) {
  if (trace_path == "-") {
    return ".";
  }
  const fs::path parent = fs::path(trace_path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

std::string render_pagemap_text(const PagemapSummary& summary) {
  std::string out =
      "\nPAGES (private writable mappings when tracing stopped; all-zero: resident pages holding "
      "only zero bytes, allocated and never written or cleared)\n";
  for (const std::string& problem : summary.problems) {
    fmt::format_to(std::back_inserter(out), "  {}\n", problem);
  }
  if (summary.mappings.empty()) {
    return out;
  }
  fmt::format_to(std::back_inserter(out), "  {:<33} {:<4} {:>10} {:>8} {:>9} {:>9}  {}\n",
                 "mapping", "mode", "size", "pages", "resident", "all-zero", "path");
  std::uint64_t pages = 0;
  std::uint64_t resident = 0;
  std::uint64_t zero = 0;
  bool zero_known = true;
  for (const PagemapMapping& m : summary.mappings) {
    const std::string zero_text = m.zero ? std::to_string(*m.zero) : "?";
    fmt::format_to(std::back_inserter(out), "  {:<33} {:<4} {:>10} {:>8} {:>9} {:>9}  {}\n",
                   fmt::format("{:016x}-{:016x}", m.start, m.end),
                   m.permissions.empty() ? "?" : m.permissions,
                   human_bytes(m.pages * summary.page_size), m.pages, m.resident, zero_text,
                   m.path.empty() ? "[anonymous]" : m.path);
    pages += m.pages;
    resident += m.resident;
    zero += m.zero.value_or(0);
    zero_known = zero_known && m.zero.has_value();
  }
  fmt::format_to(std::back_inserter(out),
                 "  total: {} mapping(s), {} in {} pages, {} resident ({}), {} all-zero{}\n",
                 summary.mappings.size(), human_bytes(pages * summary.page_size), pages, resident,
                 human_bytes(resident * summary.page_size), zero_known ? std::to_string(zero) : "?",
                 zero_known
                     ? fmt::format(" ({}, {} of the resident pages)",
                                   human_bytes(zero * summary.page_size), percent(zero, resident))
                     : "");
  return out;
}

Json render_pagemap_json(const PagemapSummary& summary) {
  Json mappings = Json::array();
  for (const PagemapMapping& m : summary.mappings) {
    Json mapping;
    mapping["start"] = m.start;
    mapping["end"] = m.end;
    mapping["mode"] = json_text(m.permissions);
    mapping["path"] = json_text(m.path);
    mapping["pages"] = m.pages;
    mapping["resident"] = m.resident;
    mapping["all_zero"] = m.zero ? Json(*m.zero) : Json(nullptr);
    mappings.push_back(std::move(mapping));
  }
  Json problems = Json::array();
  for (const std::string& problem : summary.problems) {
    problems.push_back(json_text(problem));
  }
  Json pagemap;
  pagemap["page_size"] = summary.page_size;
  pagemap["mappings"] = std::move(mappings);
  pagemap["problems"] = std::move(problems);
  return pagemap;
}

}  // namespace rtrace::reports
