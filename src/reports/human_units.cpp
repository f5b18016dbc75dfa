#include "reports/human_units.h"

#include <fmt/format.h>

#include <array>

namespace rtrace::reports {

std::string human_bytes(std::uint64_t bytes) {
  if (bytes < 1000) {
    return fmt::format("{} B", bytes);
  }
  constexpr std::array<const char*, 6> kUnits{"KB", "MB", "GB", "TB", "PB", "EB"};
  auto value = static_cast<double>(bytes) / 1000.0;
  std::size_t unit = 0;
  // 999.95 KB would print as "1000.0 KB": move up before rounding does.
  while (value >= 999.95 && unit + 1 < kUnits.size()) {
    value /= 1000.0;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

std::string percent(std::uint64_t part, std::uint64_t whole) {
  if (whole == 0) {
    return {};
  }
  return fmt::format("{:.1f}%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

}  // namespace rtrace::reports
