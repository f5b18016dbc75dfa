#include "filters/suppression_pattern.h"

#include <string>

namespace rtrace {
namespace {

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
  if (text.empty()) {
    return false;
  }
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

}  // namespace rtrace
