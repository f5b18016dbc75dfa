// Numbers as people read them: 4.1 KiB, 8.5 MiB, 37.5%, 12.3 ms; as the HTML page writes them.
#pragma once

#include <cstdint>
#include <string>

namespace rtrace::reports {

// Bytes in binary units with one decimal: "812 B", "4.1 KiB", "8.5 MiB".
std::string human_bytes(std::uint64_t bytes);

// A duration: "812 ns", "4.1 µs", "8.5 ms", "12.34 s".
std::string human_duration(std::uint64_t ns);

// `part` as a percentage of `whole` with one decimal ("37.5%"); empty when `whole` is 0.
std::string percent(std::uint64_t part, std::uint64_t whole);

}  // namespace rtrace::reports
