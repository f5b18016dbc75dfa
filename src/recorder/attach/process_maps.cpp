#include "recorder/attach/process_maps.h"

#include <cerrno>
#include <fstream>
#include <stdexcept>

#include "io/proc_maps_line.h"
#include "recorder/attach/attach_error.h"

namespace rtrace::recorder::attach {

std::vector<MappedFile> mapped_files(pid_t pid) {
  const std::string maps_path = "/proc/" + std::to_string(pid) + "/maps";
  std::ifstream maps(maps_path);
  if (!maps) {
    if (errno == EACCES || errno == EPERM) {
      throw AttachError(no_permission_message(pid));
    }
    throw AttachError("process " + std::to_string(pid) + ": no such process");
  }
  std::vector<MappedFile> files;
  std::string line;
  while (std::getline(maps, line)) {
    const std::optional<ProcMapsLine> mapping = parse_proc_maps_line(line);
    if (!mapping || mapping->path.empty() || mapping->path[0] != '/' || mapping->offset != 0) {
      continue;
    }
    const std::string& path = mapping->path;
    const std::uint64_t start = mapping->start;
    bool known = false;
    for (const MappedFile& file : files) {
      known = known || file.path == path;
    }
    if (!known) {
      files.push_back({path, start});
    }
  }
  return files;
}

std::optional<MappedFile> find_mapped(const std::vector<MappedFile>& files,
                                      const std::function<bool(const std::string&)>& matches) {
  for (const MappedFile& file : files) {
    if (matches(base_name(file.path))) {
      return file;
    }
  }
  return std::nullopt;
}

std::string base_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace rtrace::recorder::attach
