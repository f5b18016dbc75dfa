// Leak suppressions in LeakSanitizer's format: one `leak:PATTERN` per line, `#` comments.
//
// A pattern matches a frame's function name, its source file or its module path as a
// substring; `*` matches any run of characters, a leading `^` anchors at the start and a
// trailing `$` at the end. A leak is suppressed when any frame of its backtrace matches.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rtrace::reports {

class Suppressions {
 public:
  // Parses suppression text; throws std::runtime_error naming the line of anything else than
  // `leak:PATTERN`, a comment or a blank line.
  static Suppressions parse(std::string_view text, std::string_view source);

  bool empty() const { return patterns_.empty(); }
  // Whether `name` (a function, source file or module path) matches any pattern.
  bool matches(std::string_view name) const;

 private:
  std::vector<std::string> patterns_;
};

// LSan's glob: `*` wildcards, `^` / `$` anchors, otherwise a substring match.
bool suppression_pattern_matches(std::string_view pattern, std::string_view text);

}  // namespace rtrace::reports
