// One line of a /proc/PID/maps file ("start-end perms offset dev inode   path"), as the attach
// (the target's libraries) and the pagemap report (a snapshot's maps file) read them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rtrace {

struct ProcMapsLine {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::string permissions;  // "r-xp"
  std::uint64_t offset = 0;
  std::string path;  // empty for an anonymous mapping; "[stack]" and the like as the kernel says
};

// Nothing when `line` is not a maps line (its range or offset is not hexadecimal).
std::optional<ProcMapsLine> parse_proc_maps_line(std::string_view line);

}  // namespace rtrace
