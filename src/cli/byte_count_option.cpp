#include "cli/byte_count_option.h"

#include <array>
#include <cctype>
#include <charconv>
#include <system_error>
#include <utility>

namespace rtrace::cli {
namespace {

bool same_letters(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::optional<std::uint64_t> unit_factor(std::string_view unit) {
  static constexpr std::array<std::pair<std::string_view, std::uint64_t>, 7> kUnits{{
      {"", 1},
      {"k", std::uint64_t{1} << 10},
      {"kib", std::uint64_t{1} << 10},
      {"m", std::uint64_t{1} << 20},
      {"mib", std::uint64_t{1} << 20},
      {"g", std::uint64_t{1} << 30},
      {"gib", std::uint64_t{1} << 30},
  }};
  for (const auto& [name, factor] : kUnits) {
    if (same_letters(unit, name)) {
      return factor;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::uint64_t> parse_byte_count(std::string_view text) {
  std::uint64_t number = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const auto [stop, error] = std::from_chars(first, last, number);
  if (stop == first || error != std::errc()) {
    return std::nullopt;
  }
  const std::optional<std::uint64_t> factor =
      unit_factor(text.substr(static_cast<std::size_t>(stop - first)));
  std::uint64_t bytes = 0;
  if (!factor || __builtin_mul_overflow(number, *factor, &bytes)) {
    return std::nullopt;
  }
  return bytes;
}

}  // namespace rtrace::cli
