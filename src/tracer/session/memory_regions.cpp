#include "tracer/session/memory_regions.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <iterator>

namespace rtrace::tracer {
namespace {

std::uintptr_t parse_hex(const char*& p, const char* end) {
  std::uintptr_t value = 0;
  for (; p < end; ++p) {
    const char c = *p;
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0) {
      break;
    }
    value = value * 16 + static_cast<std::uintptr_t>(digit);
  }
  return value;
}

bool ends_with(const char* begin, const char* end, const char* suffix) {
  const std::size_t length = std::strlen(suffix);
  return static_cast<std::size_t>(end - begin) >= length &&
         std::memcmp(end - length, suffix, length) == 0;
}

// One line of /proc/self/maps: `start-end perms offset dev inode [path]`.
bool readable_line(const char* line, const char* end, AddressRange& range) {
  const char* p = line;
  range.begin = parse_hex(p, end);
  if (p >= end || *p != '-') {
    return false;
  }
  ++p;
  range.end = parse_hex(p, end);
  if (p + 2 >= end || p[1] != 'r') {
    return false;
  }
  return !ends_with(line, end, "[vvar]") && !ends_with(line, end, "[vsyscall]") &&
         !ends_with(line, end, "[vvar_vclock]");
}

struct SegmentList {
  AddressRange* out;
  std::size_t capacity;
  ModuleRoots roots;
};

// The calling thread's block of a tracer module's static TLS, as an offset from its thread
// pointer (dl_iterate_phdr gives the caller's block).
void add_tracer_tls(const dl_phdr_info& info, ModuleRoots& roots) {
  if (info.dlpi_tls_data == nullptr || roots.tracer_tls_count == std::size(roots.tracer_tls)) {
    return;
  }
  for (ElfW(Half) i = 0; i < info.dlpi_phnum; ++i) {
    if (info.dlpi_phdr[i].p_type == PT_TLS) {
      roots.tracer_tls[roots.tracer_tls_count++] = {
          reinterpret_cast<std::intptr_t>(info.dlpi_tls_data) -
              reinterpret_cast<std::intptr_t>(__builtin_thread_pointer()),
          info.dlpi_phdr[i].p_memsz};
    }
  }
}

bool tracer_module(const char* path) {
  const char* name = std::strrchr(path, '/');
  name = name == nullptr ? path : name + 1;
  return std::strncmp(name, "librtrace-", 10) == 0 ||
         std::strncmp(name, "rtrace-audit-linker", 19) == 0;
}

int add_segments(dl_phdr_info* info, std::size_t /*size*/, void* data) {
  auto& list = *static_cast<SegmentList*>(data);
  if (info->dlpi_name != nullptr && tracer_module(info->dlpi_name)) {
    add_tracer_tls(*info, list.roots);
    return 0;
  }
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& header = info->dlpi_phdr[i];
    if (header.p_type == PT_LOAD && (header.p_flags & PF_W) != 0 &&
        list.roots.segment_count < list.capacity) {
      const std::uintptr_t begin = info->dlpi_addr + header.p_vaddr;
      list.out[list.roots.segment_count++] = {begin, begin + header.p_memsz};
    }
  }
  return 0;
}

}  // namespace

std::size_t read_readable_mappings(AddressRange* out, std::size_t capacity) {
  const int fd =
      static_cast<int>(::syscall(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC));
  if (fd < 0) {
    return 0;
  }
  static char buffer[65536];
  std::size_t kept = 0;  // bytes of an unfinished line at the buffer's start
  std::size_t count = 0;
  for (;;) {
    const long got = ::syscall(SYS_read, fd, buffer + kept, sizeof buffer - kept);
    if (got <= 0) {
      break;
    }
    const char* end = buffer + kept + got;
    const char* line = buffer;
    for (const char* newline = static_cast<const char*>(std::memchr(line, '\n', end - line));
         newline != nullptr;
         newline = static_cast<const char*>(std::memchr(line, '\n', end - line))) {
      AddressRange range;
      if (readable_line(line, newline, range) && count < capacity) {
        out[count++] = range;
      }
      line = newline + 1;
    }
    kept = static_cast<std::size_t>(end - line);
    std::memmove(buffer, line, kept);
    if (kept == sizeof buffer) {
      kept = 0;  // a line longer than the buffer: dropped
    }
  }
  ::syscall(SYS_close, fd);
  return count;
}

const AddressRange* mapping_of(const AddressRange* ranges, std::size_t count,
                               std::uintptr_t address) {
  std::size_t low = 0;
  std::size_t high = count;
  while (low < high) {
    const std::size_t middle = low + (high - low) / 2;
    if (ranges[middle].end <= address) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return low < count && ranges[low].begin <= address ? &ranges[low] : nullptr;
}

ModuleRoots module_roots(AddressRange* out, std::size_t capacity) {
  SegmentList list{out, capacity, {}};
  ::dl_iterate_phdr(add_segments, &list);
  return list.roots;
}

std::size_t static_tls_size() {
  // The dynamic linker's own answer (LeakSanitizer asks it the same way); private to glibc, so
  // looked up by name and optional, at each (rare) check: a function-local static would need the
  // C++ runtime's guard.
  using GetInfo = void (*)(std::size_t*, std::size_t*);
  const GetInfo get_info =
      reinterpret_cast<GetInfo>(::dlsym(RTLD_DEFAULT, "_dl_get_tls_static_info"));
  if (get_info == nullptr) {
    return 0;
  }
  std::size_t size = 0;
  std::size_t align = 0;
  get_info(&size, &align);
  return size;
}

}  // namespace rtrace::tracer
