// The objects mapped into another process, from /proc/<pid>/maps.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rtrace::recorder::attach {

struct MappedFile {
  std::string path;
  std::uint64_t start = 0;  // the address of its mapping at file offset 0
};

// The files mapped at offset 0 in `pid`, in address order. Throws AttachError when the maps
// cannot be read: no such process, or no permission.
std::vector<MappedFile> mapped_files(pid_t pid);

// The first mapped file whose base name `matches`.
std::optional<MappedFile> find_mapped(const std::vector<MappedFile>& files,
                                      const std::function<bool(const std::string&)>& matches);

// The base name of `path`.
std::string base_name(const std::string& path);

}  // namespace rtrace::recorder::attach
