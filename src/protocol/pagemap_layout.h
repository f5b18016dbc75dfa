// The files the pagemap module attaches to a trace (docs/pagemap.md): their names, and the
// layout of the three binary ones. Shared by the writer (the tracer, pagemap_writer.h) and the
// reader (`rtrace report`, reports/pagemap_report.h). Numbers are 64-bit little-endian (the
// tracer runs on x86-64 only).
//
// Every binary file: a 16-byte header (8-byte magic, u32 version 1, u32 page size), then for each
// private writable mapping of the maps copy, in its order, a 16-byte range header (u64 start,
// u64 end; end - start a whole number of pages) and the range's data:
//   .pagemap     one kernel pagemap entry (u64) per page: bit 63 present, 62 swapped, 0-54 PFN
//                (0 unless the process had CAP_SYS_ADMIN), as /proc/self/pagemap gives them;
//   .kpageflags  one u64 per page: the /proc/kpageflags entry of its page frame, 0 when the page
//                is not present or its frame number is not known;
//   .zeropages   a bitmap, ceil(pages / 64) u64 words: bit (i % 64) of word i / 64 is set when
//                page i was present and held only zero bytes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rtrace::pagemap {

// Attachment names (FILE packets) and file name suffixes: <pid>-<n>.<suffix>.
inline constexpr char kMapsName[] = "maps";
inline constexpr char kPagemapName[] = "pagemap";
inline constexpr char kKpageflagsName[] = "kpageflags";
inline constexpr char kZeropagesName[] = "zeropages";

inline constexpr std::size_t kMagicSize = 8;
inline constexpr char kPagemapMagic[kMagicSize + 1] = "RTPAGEMP";
inline constexpr char kKpageflagsMagic[kMagicSize + 1] = "RTKPGFLG";
inline constexpr char kZeropagesMagic[kMagicSize + 1] = "RTZEROPG";
inline constexpr std::uint32_t kVersion = 1;

inline constexpr std::size_t kFileHeaderSize = 16;
inline constexpr std::size_t kRangeHeaderSize = 16;

inline constexpr std::uint64_t kPresent = std::uint64_t{1} << 63;
inline constexpr std::uint64_t kSwapped = std::uint64_t{1} << 62;
inline constexpr std::uint64_t kFrameMask = (std::uint64_t{1} << 55) - 1;

// Words of a range's zero-page bitmap.
constexpr std::uint64_t bitmap_words(std::uint64_t pages) {
  return (pages + 63) / 64;
}

}  // namespace rtrace::pagemap
