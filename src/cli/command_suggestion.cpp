#include "cli/command_suggestion.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

namespace rtrace::cli {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: Levenshtein plus the swap of two neighbours, the commonest typo.
  const std::size_t columns = b.size() + 1;
  std::vector<std::size_t> d((a.size() + 1) * columns);
  const auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * columns + j]; };
  for (std::size_t i = 0; i <= a.size(); ++i) {
    at(i, 0) = i;
  }
  for (std::size_t j = 0; j <= b.size(); ++j) {
    at(0, j) = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t replace = a[i - 1] == b[j - 1] ? 0 : 1;
      std::size_t best = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + replace});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        best = std::min(best, at(i - 2, j - 2) + 1);
      }
      at(i, j) = best;
    }
  }
  return at(a.size(), b.size());
}

std::optional<std::string_view> closest_name(std::string_view typed,
                                             std::span<const std::string_view> names) {
  constexpr std::size_t kMostEdits = 2;
  std::optional<std::string_view> closest;
  std::size_t fewest = kMostEdits + 1;
  for (const std::string_view name : names) {
    const std::size_t edits = edit_distance(typed, name);
    if (edits < fewest && edits * 2 < typed.size()) {
      closest = name;
      fewest = edits;
    }
  }
  return closest;
}

std::string unknown_command_message(std::string_view typed,
                                    std::span<const std::string_view> names) {
  if (const std::optional<std::string_view> closest = closest_name(typed, names)) {
    return fmt::format("unknown command '{}'; did you mean '{}'?", typed, *closest);
  }
  return fmt::format("unknown command '{}'; the commands are: {}", typed, fmt::join(names, ", "));
}

}  // namespace rtrace::cli
