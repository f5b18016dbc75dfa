#include "recorder/attach/process_maps.h"

#include <cerrno>
#include <fstream>
#include <sstream>
#include <stdexcept>

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
    // start-end perms offset dev inode path
    std::istringstream fields(line);
    std::string range;
    std::string permissions;
    std::string offset;
    std::string device;
    std::string inode;
    fields >> range >> permissions >> offset >> device >> inode;
    std::string path;
    std::getline(fields >> std::ws, path);
    if (path.empty() || path[0] != '/' || std::stoull(offset, nullptr, 16) != 0) {
      continue;
    }
    const std::uint64_t start = std::stoull(range.substr(0, range.find('-')), nullptr, 16);
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
