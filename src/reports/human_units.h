// Numbers as people read them: 4.1 KB, 8.5 MB, 37.5%.
#pragma once

#include <cstdint>
#include <string>

namespace rtrace::reports {

// Bytes in decimal units with one decimal (as heaptrack_print): "812 B", "4.1 KB", "8.5 MB".
std::string human_bytes(std::uint64_t bytes);

// `part` as a percentage of `whole` with one decimal ("37.5%"); empty when `whole` is 0.
std::string percent(std::uint64_t part, std::uint64_t whole);

}  // namespace rtrace::reports
