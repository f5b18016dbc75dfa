#include "reports/suppressions.h"

#include <fmt/format.h>

#include <stdexcept>

namespace rtrace::reports {
namespace {

std::string_view trim(std::string_view text) {
  const std::size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) {
    return {};
  }
  const std::size_t end = text.find_last_not_of(" \t\r");
  return text.substr(begin, end - begin + 1);
}

// Whether `pattern` (with `*` wildcards, no anchors) matches all of `text`. Iterative with one
// backtrack point, so hostile patterns cannot make it exponential.
bool glob_matches_whole(std::string_view pattern, std::string_view text) {
  std::size_t p = 0;
  std::size_t t = 0;
  std::size_t star = std::string_view::npos;
  std::size_t resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') {
    ++p;
  }
  return p == pattern.size();
}

}  // namespace

bool suppression_pattern_matches(std::string_view pattern, std::string_view text) {
  std::string glob;
  if (pattern.starts_with('^')) {
    pattern.remove_prefix(1);
  } else {
    glob += '*';
  }
  const bool anchored_end = pattern.ends_with('$');
  if (anchored_end) {
    pattern.remove_suffix(1);
  }
  glob += pattern;
  if (!anchored_end) {
    glob += '*';
  }
  return glob_matches_whole(glob, text);
}

Suppressions Suppressions::parse(std::string_view text, std::string_view source) {
  Suppressions result;
  std::size_t line_number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = trim(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    ++line_number;
    if (line.empty() || line.starts_with('#')) {
      continue;
    }
    if (!line.starts_with("leak:") || trim(line.substr(5)).empty()) {
      throw std::runtime_error(
          fmt::format("{}:{}: expected 'leak:PATTERN', got '{}'", source, line_number, line));
    }
    result.patterns_.emplace_back(trim(line.substr(5)));
  }
  return result;
}

bool Suppressions::matches(std::string_view name) const {
  if (name.empty()) {
    return false;
  }
  for (const std::string& pattern : patterns_) {
    if (suppression_pattern_matches(pattern, name)) {
      return true;
    }
  }
  return false;
}

}  // namespace rtrace::reports
