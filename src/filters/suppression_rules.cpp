#include "filters/suppression_rules.h"

#include <fmt/format.h>

#include <stdexcept>

#include "filters/suppression_pattern.h"

namespace rtrace {
namespace {

std::string_view trim(std::string_view text) {
  const std::size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) {
    return {};
  }
  const std::size_t end = text.find_last_not_of(" \t\r");
  return text.substr(begin, end - begin + 1);
}

std::string_view file_name_of(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Rules of kinds other than leak: counted, and named once per file.
struct OtherKinds {
  std::size_t count = 0;
  std::size_t first_line = 0;
  std::string first_kind;
};

}  // namespace

void SuppressionRules::add(std::string_view text, std::string_view source,
                           const std::function<void(std::string_view)>& warn) {
  OtherKinds others;
  std::size_t line_number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = trim(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    ++line_number;
    if (line.empty() || line.starts_with('#')) {
      continue;
    }
    const std::size_t colon = line.find(':');
    const std::string_view kind =
        colon == std::string_view::npos ? "" : trim(line.substr(0, colon));
    const std::string_view pattern =
        colon == std::string_view::npos ? "" : trim(line.substr(colon + 1));
    if (kind.empty() || pattern.empty() || kind.find_first_of(" \t") != std::string_view::npos) {
      throw std::runtime_error(
          fmt::format("{}:{}: expected 'leak:PATTERN', got '{}'", source, line_number, line));
    }
    if (kind == "leak") {
      rules_.push_back({std::string(pattern), std::string(source), line_number});
    } else if (others.count++ == 0) {
      others.first_line = line_number;
      others.first_kind = kind;
    }
  }
  if (others.count > 0 && warn) {
    warn(
        fmt::format("{}:{}: {} rule(s) of kinds other than 'leak:' ignored (the first: '{}:'); "
                    "only leak rules apply to a trace",
                    source, others.first_line, others.count, others.first_kind));
  }
}

std::optional<std::size_t> SuppressionRules::match(const SuppressionFrame& frame) const {
  const std::string_view module_file = file_name_of(frame.module);
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    const std::string_view pattern = rules_[i].pattern;
    if (suppression_pattern_matches(pattern, frame.function) ||
        suppression_pattern_matches(pattern, frame.file) ||
        suppression_pattern_matches(pattern, frame.module) ||
        (module_file.size() != frame.module.size() &&
         suppression_pattern_matches(pattern, module_file))) {
      return i;
    }
  }
  return std::nullopt;
}

std::optional<std::size_t> SuppressionRules::match_symbol(const Symbol& symbol) const {
  std::optional<std::size_t> found = match(SuppressionFrame{
      .function = symbol.where.function, .file = symbol.where.file, .module = symbol.module});
  for (const SourcePosition& caller : symbol.inlined_by) {
    if (found) {
      break;
    }
    found = match(SuppressionFrame{.function = caller.function, .file = caller.file});
  }
  return found;
}

}  // namespace rtrace
