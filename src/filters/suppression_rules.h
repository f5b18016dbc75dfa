// Leak suppression rules in LeakSanitizer's file format, as LSan and heaptrack read them: one
// `KIND:PATTERN` per line, `#` comments and blank lines ignored, surrounding blanks trimmed.
//
// Only `leak:` rules concern a trace; the other kinds LSan's and the other sanitizers' files may
// hold (`called_from_lib:`, `race:`, ...) are read and left out, with one warning per file. A
// line that is no `KIND:PATTERN` at all, or a rule with an empty pattern, is an error naming the
// file and line.
//
// A leaked block is suppressed when any frame of its allocation backtrace matches a rule
// (suppression_pattern.h) by its function name, its source file, or its module (the library or
// executable, by path or by file name). The first rule that matches is the one credited.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/symbol.h"

namespace rtrace {

struct SuppressionRule {
  std::string pattern;  // after `leak:`
  std::string source;   // the file (or text) it came from, as the user named it
  std::size_t line = 0;
};

// What is known of one frame; any part may be empty (an unresolved trace knows modules only).
struct SuppressionFrame {
  std::string_view function{};
  std::string_view file{};
  std::string_view module{};
};

class SuppressionRules {
 public:
  // Adds the rules of `text`, read from `source` (named in errors and warnings). Throws
  // std::runtime_error "SOURCE:LINE: ..." for a malformed line; `warn` (may be empty) receives
  // the warning about rules of other kinds.
  void add(std::string_view text, std::string_view source,
           const std::function<void(std::string_view)>& warn = {});

  bool empty() const { return rules_.empty(); }
  const std::vector<SuppressionRule>& rules() const { return rules_; }

  // The index of the first rule that `frame` matches.
  std::optional<std::size_t> match(const SuppressionFrame& frame) const;
  // The index of the first rule that a resolved frame matches: by its module, or by the function
  // and file of its position or of any call that inlined it (as LSan matches inlined frames).
  std::optional<std::size_t> match_symbol(const Symbol& symbol) const;

 private:
  std::vector<SuppressionRule> rules_;
};

}  // namespace rtrace
