#include "tracer/modules/pagemap/pagemap_writer.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "protocol/pagemap_layout.h"
#include "tracer/core/decimal.h"

namespace rtrace::tracer {
namespace {

namespace layout = rtrace::pagemap;

constexpr std::size_t kMaxRanges = 8192;  // more private writable mappings: not listed
constexpr std::size_t kChunkPages = 512;  // page map entries read at once (a multiple of 64)
constexpr std::uint64_t kMaxRangePages =
    1U << 24;  // bigger ranges (64 GiB of 4 KiB pages): not listed
constexpr std::size_t kMaxPageSize = std::size_t{64} * 1024;
constexpr int kMaxStems = 100000;

struct Range {
  std::uint64_t start;
  std::uint64_t end;
};

// Static: the snapshot runs in signal handlers too, and one at a time (see the header).
Range g_ranges[kMaxRanges];
std::size_t g_range_count = 0;
char g_io[64 * 1024];
std::uint64_t g_entries[kChunkPages];
std::uint64_t g_flags[kChunkPages];
std::uint64_t g_bitmap[kChunkPages / 64];
alignas(8) char g_page[kMaxPageSize];

// ---- raw system calls (the program's open/close may be wrapped: by the file module) ---------

int open_file(const char* path, int flags, int mode = 0) {
  return static_cast<int>(::syscall(SYS_openat, AT_FDCWD, path, flags | O_CLOEXEC, mode));
}

void close_file(int fd) {
  if (fd >= 0) {
    ::syscall(SYS_close, fd);
  }
}

long read_some(int fd, void* buffer, std::size_t size) {
  long got = 0;
  do {
    got = ::syscall(SYS_read, fd, buffer, size);
  } while (got < 0 && errno == EINTR);
  return got;
}

// Reads `size` bytes at `offset`; false when fewer are there.
bool read_at(int fd, void* buffer, std::size_t size, std::uint64_t offset) {
  auto* out = static_cast<char*>(buffer);
  while (size > 0) {
    const long got = ::syscall(SYS_pread64, fd, out, size, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got <= 0) {
      return false;
    }
    out += got;
    size -= static_cast<std::size_t>(got);
    offset += static_cast<std::uint64_t>(got);
  }
  return true;
}

bool write_all(int fd, const void* data, std::size_t size) {
  const auto* in = static_cast<const char*>(data);
  while (size > 0) {
    const long written = ::syscall(SYS_write, fd, in, size);
    if (written < 0 && errno == EINTR) {
      continue;
    }
    if (written <= 0) {
      return false;
    }
    in += written;
    size -= static_cast<std::size_t>(written);
  }
  return true;
}

// ---- the output files -------------------------------------------------------------------------

// One file of the snapshot: <directory>/<pid>-<n><suffix>, created new.
struct OutputFile {
  char path[PATH_MAX + 64] = {};
  const char* file_name = nullptr;  // in `path`, after the directory
  int fd = -1;
  bool ok = false;  // every write succeeded

  bool create(const char* directory, std::uint64_t pid, std::uint64_t stem, const char* suffix) {
    const std::size_t dir_length = std::strlen(directory);
    const std::size_t suffix_length = std::strlen(suffix);
    if (dir_length + 1 + 20 + 1 + 20 + suffix_length + 1 > sizeof path) {
      errno = ENAMETOOLONG;
      return false;
    }
    char* out = path;
    std::memcpy(out, directory, dir_length + 1);  // the NUL becomes the separator
    out += dir_length;
    *out++ = '/';
    file_name = out;
    out = write_decimal(out, pid);
    *out++ = '-';
    out = write_decimal(out, stem);
    std::memcpy(out, suffix, suffix_length + 1);
    // Owner only: the page map names physical frames (which the kernel shows only to root), and
    // the maps where the libraries are (what address randomisation hides from others).
    fd = open_file(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
    ok = fd >= 0;
    return ok;
  }

  void write(const void* data, std::size_t size) {
    if (ok) {
      ok = write_all(fd, data, size);
    }
  }

  // Closes the file; tells `attach` of a complete one, removes an incomplete one (ours: created
  // by this snapshot). Returns 1 for a complete file.
  int finish(const char* name, AttachFunction attach) {
    if (fd < 0) {
      return 0;
    }
    close_file(fd);
    fd = -1;
    if (!ok) {
      ::syscall(SYS_unlinkat, AT_FDCWD, path, 0);
      return 0;
    }
    attach(name, file_name);
    return 1;
  }
};

// ---- the memory map ---------------------------------------------------------------------------

bool parse_hex(const char*& p, const char* end, std::uint64_t& value) {
  value = 0;
  const char* first = p;
  for (; p < end; ++p) {
    const char c = *p;
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0) {
      break;
    }
    value = value << 4 | static_cast<std::uint64_t>(digit);
  }
  return p > first;
}

// "start-end perms ...": keeps the range when it is readable, writable and private.
void note_mapping(const char* line, std::size_t length) {
  const char* p = line;
  const char* end = line + length;
  Range range{};
  if (!parse_hex(p, end, range.start) || p == end || *p++ != '-' || !parse_hex(p, end, range.end) ||
      end - p < 5 || *p++ != ' ') {
    return;
  }
  const bool private_writable = p[0] == 'r' && p[1] == 'w' && p[3] == 'p';
  if (private_writable && range.end > range.start && g_range_count < kMaxRanges) {
    g_ranges[g_range_count++] = range;
  }
}

// Copies the maps verbatim into `out`, noting the private writable mappings on the way.
bool copy_maps(int in, OutputFile& out) {
  g_range_count = 0;
  char head[64];  // the start of the current line: enough for its range and permissions
  std::size_t head_length = 0;
  for (;;) {
    const long got = read_some(in, g_io, sizeof g_io);
    if (got < 0) {
      return false;
    }
    if (got == 0) {
      break;
    }
    out.write(g_io, static_cast<std::size_t>(got));
    for (long i = 0; i < got; ++i) {
      if (g_io[i] == '\n') {
        note_mapping(head, head_length);
        head_length = 0;
      } else if (head_length < sizeof head) {
        head[head_length++] = g_io[i];
      }
    }
  }
  note_mapping(head, head_length);
  return out.ok;
}

// ---- the page map of each range ---------------------------------------------------------------

struct Sources {
  int pagemap = -1;
  int kpageflags = -1;
  int memory = -1;
};

struct Outputs {
  OutputFile pagemap;
  OutputFile kpageflags;
  OutputFile zeropages;
};

void write_file_header(OutputFile& file, const char* magic, std::size_t page_size) {
  char header[layout::kFileHeaderSize];
  std::memcpy(header, magic, layout::kMagicSize);
  const std::uint32_t version = layout::kVersion;
  const auto size = static_cast<std::uint32_t>(page_size);
  std::memcpy(header + 8, &version, sizeof version);
  std::memcpy(header + 12, &size, sizeof size);
  file.write(header, sizeof header);
}

bool all_zero(const char* page, std::size_t size) {
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < size; i += sizeof bits) {
    std::uint64_t word = 0;
    std::memcpy(&word, page + i, sizeof word);
    bits |= word;
  }
  return bits == 0;
}

// The /proc/kpageflags entry of a present page's frame; 0 when its frame number is hidden.
std::uint64_t frame_flags(int kpageflags, std::uint64_t entry) {
  const std::uint64_t frame = entry & layout::kFrameMask;
  std::uint64_t flags = 0;
  if (frame == 0 || !read_at(kpageflags, &flags, sizeof flags, frame * sizeof flags)) {
    return 0;
  }
  return flags;
}

// Pages [first, first + count) of `range`: their entries, flags and zero bits.
void write_chunk(const Range& range, std::uint64_t first, std::size_t count, std::size_t page_size,
                 const Sources& in, Outputs& out) {
  const std::uint64_t base_page = range.start / page_size + first;
  if (!read_at(in.pagemap, g_entries, count * sizeof g_entries[0], base_page * 8)) {
    std::memset(g_entries, 0, count * sizeof g_entries[0]);  // gone meanwhile: not present
  }
  std::memset(g_bitmap, 0, sizeof g_bitmap);
  for (std::size_t i = 0; i < count; ++i) {
    const bool present = (g_entries[i] & layout::kPresent) != 0;
    g_flags[i] = present && in.kpageflags >= 0 ? frame_flags(in.kpageflags, g_entries[i]) : 0;
    if (present && in.memory >= 0 &&
        read_at(in.memory, g_page, page_size, range.start + (first + i) * page_size) &&
        all_zero(g_page, page_size)) {
      g_bitmap[i / 64] |= std::uint64_t{1} << (i % 64);
    }
  }
  out.pagemap.write(g_entries, count * sizeof g_entries[0]);
  out.kpageflags.write(g_flags, count * sizeof g_flags[0]);
  out.zeropages.write(g_bitmap, layout::bitmap_words(count) * sizeof g_bitmap[0]);
}

void write_range(const Range& range, std::size_t page_size, const Sources& in, Outputs& out) {
  const std::uint64_t pages = (range.end - range.start) / page_size;
  if (pages > kMaxRangePages) {
    return;
  }
  const std::uint64_t header[2] = {range.start, range.start + pages * page_size};
  out.pagemap.write(header, sizeof header);
  out.kpageflags.write(header, sizeof header);
  out.zeropages.write(header, sizeof header);
  for (std::uint64_t first = 0; first < pages; first += kChunkPages) {
    const std::uint64_t left = pages - first;
    write_chunk(range, first, left < kChunkPages ? left : kChunkPages, page_size, in, out);
  }
}

// Creates <pid>-<stem>.maps for the first free stem; returns it, or -1.
long create_maps_file(OutputFile& maps, const char* directory, std::uint64_t pid) {
  for (int stem = 0; stem < kMaxStems; ++stem) {
    if (maps.create(directory, pid, static_cast<std::uint64_t>(stem), ".maps")) {
      return stem;
    }
    if (errno != EEXIST) {
      return -1;
    }
  }
  return -1;
}

int write_page_files(const char* directory, std::uint64_t pid, std::uint64_t stem,
                     std::size_t page_size, const PagemapSources& sources, AttachFunction attach) {
  static Outputs out;  // static: each holds a PATH_MAX path, too much for a signal stack
  out = Outputs{};
  Sources in;
  in.pagemap = open_file(sources.pagemap, O_RDONLY);
  if (in.pagemap < 0) {
    return 0;
  }
  in.kpageflags = open_file(sources.kpageflags, O_RDONLY);
  in.memory = open_file(sources.memory, O_RDONLY);
  out.pagemap.create(directory, pid, stem, ".pagemap");
  write_file_header(out.pagemap, layout::kPagemapMagic, page_size);
  if (in.kpageflags >= 0 && out.kpageflags.create(directory, pid, stem, ".kpageflags")) {
    write_file_header(out.kpageflags, layout::kKpageflagsMagic, page_size);
  }
  if (in.memory >= 0 && out.zeropages.create(directory, pid, stem, ".zeropages")) {
    write_file_header(out.zeropages, layout::kZeropagesMagic, page_size);
  }
  for (std::size_t i = 0; i < g_range_count; ++i) {
    write_range(g_ranges[i], page_size, in, out);
  }
  close_file(in.pagemap);
  close_file(in.kpageflags);
  close_file(in.memory);
  int written = out.pagemap.finish(layout::kPagemapName, attach);
  written += out.kpageflags.finish(layout::kKpageflagsName, attach);
  written += out.zeropages.finish(layout::kZeropagesName, attach);
  return written;
}

}  // namespace

int write_pagemap_snapshot(const char* directory, std::uint64_t pid, std::size_t page_size,
                           const PagemapSources& sources, AttachFunction attach) {
  if (directory == nullptr || page_size < 8 || page_size > kMaxPageSize ||
      (page_size & (page_size - 1)) != 0) {
    return 0;
  }
  const int maps_in = open_file(sources.maps, O_RDONLY);
  if (maps_in < 0) {
    return 0;
  }
  static OutputFile maps;
  maps = OutputFile{};
  const long stem = create_maps_file(maps, directory, pid);
  if (stem < 0) {
    close_file(maps_in);
    return 0;
  }
  const bool copied = copy_maps(maps_in, maps);
  close_file(maps_in);
  maps.ok = copied;
  const int written = maps.finish(layout::kMapsName, attach);
  if (written == 0) {
    return 0;
  }
  return written + write_page_files(directory, pid, static_cast<std::uint64_t>(stem), page_size,
                                    sources, attach);
}

}  // namespace rtrace::tracer
