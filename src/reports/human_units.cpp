#include "reports/human_units.h"

#include <fmt/format.h>

#include <array>

namespace rtrace::reports {

std::string human_bytes(std::uint64_t bytes) {
  if (bytes < 1024) {
    return fmt::format("{} B", bytes);
  }
  constexpr std::array<const char*, 6> kUnits{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  auto value = static_cast<double>(bytes) / 1024.0;
  std::size_t unit = 0;
  // 1023.96 KiB would print as "1024.0 KiB": move up before rounding does.
  while (value >= 1023.95 && unit + 1 < kUnits.size()) {
    value /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

std::string human_duration(std::uint64_t ns) {
  const auto value = static_cast<double>(ns);
  if (ns < 1'000) {
    return fmt::format("{} ns", ns);
  }
  if (ns < 1'000'000) {
    return fmt::format("{:.1f} µs", value / 1e3);
  }
  if (ns < 1'000'000'000) {
    return fmt::format("{:.1f} ms", value / 1e6);
  }
  return fmt::format("{:.2f} s", value / 1e9);
}

std::string percent(std::uint64_t part, std::uint64_t whole) {
  if (whole == 0) {
    return {};
  }
  return fmt::format("{:.1f}%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

}  // namespace rtrace::reports
