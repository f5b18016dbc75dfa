#include "formats/sprtrace_text/resolved_frame.h"

#include <algorithm>

#include "formats/sprtrace_text/text_numbers.h"

namespace rtrace::sprtrace_text {
namespace {

constexpr std::string_view kFrom = "from ";
constexpr std::string_view kAt = "at ";
constexpr std::string_view kIn = "in ";
constexpr std::string_view kUnknown = "??";

constexpr std::string_view kInlinedBy = " (inlined by ";

void set_function(SourcePosition& position, std::string_view text) {
  const auto [function, parameters] = split_parameters(text);
  position.function = function;
  position.parameters = parameters;
}

// "file.c:42" -> file "file.c", line 42. A location without a line number that prints back
// the same (no digits, leading zeros, zero) stays whole in `file`.
void set_location(SourcePosition& position, std::string_view location) {
  const std::size_t colon = location.rfind(':');
  std::uint32_t line = 0;
  if (colon != std::string_view::npos) {
    const std::string_view digits = location.substr(colon + 1);
    if (!digits.empty() && digits.front() != '0' && parse_decimal(digits, line) && line != 0) {
      position.file = location.substr(0, colon);
      position.line = line;
      return;
    }
  }
  position.file = location;
}

// Appends "file:line", or the file alone when the line is unknown.
void append_location(std::string& text, const SourcePosition& position) {
  text += position.file;
  if (position.line != 0) {
    char digits[kMaxDigits];
    text += ':';
    text.append(digits, write_decimal(digits, position.line));
  }
}

void append_name(std::string& text, const SourcePosition& position) {
  text += position.function;
  text += position.parameters;
}

// Room for the whole text at once: a symbol's text is built for every distinct frame.
std::size_t text_size_bound(const Symbol& symbol) {
  constexpr std::size_t kPunctuation = 32;  // separators, ":line", " (inlined by ", ")"
  std::size_t size = symbol.module.size() + kPunctuation;
  const auto add = [&](const SourcePosition& position) {
    size +=
        position.function.size() + position.parameters.size() + position.file.size() + kPunctuation;
  };
  add(symbol.where);
  std::for_each(symbol.inlined_by.begin(), symbol.inlined_by.end(), add);
  return size;
}

Symbol module_form(std::string_view function, std::string_view module) {
  Symbol symbol;
  set_function(symbol.where, function);
  symbol.module = module;
  return symbol;
}

Symbol source_form(std::string_view function, std::string_view location) {
  Symbol symbol;
  set_function(symbol.where, function);
  set_location(symbol.where, location);
  return symbol;
}

// Takes the ` (inlined by caller() at file:line)` suffixes off the end of `text`, innermost
// first in `calls`.
void take_inlined_calls(std::string_view& text, std::vector<SourcePosition>& calls) {
  while (text.ends_with(')')) {
    const std::size_t open = text.rfind(kInlinedBy);
    if (open == std::string_view::npos) {
      break;
    }
    const std::string_view inner =
        text.substr(open + kInlinedBy.size(), text.size() - open - kInlinedBy.size() - 1);
    const std::size_t at = inner.rfind(" at ");
    if (at == std::string_view::npos) {
      break;
    }
    SourcePosition& call = calls.emplace_back();
    set_function(call, inner.substr(0, at));
    set_location(call, inner.substr(at + 4));
    text = text.substr(0, open);
  }
  std::reverse(calls.begin(), calls.end());
}

}  // namespace

Symbol parse_resolved_frame(std::string_view text) {
  if (text.starts_with(kIn)) {
    text.remove_prefix(kIn.size());
    if (text == kUnknown) {
      return {};
    }
  }
  if (text.starts_with(kFrom)) {
    return module_form({}, text.substr(kFrom.size()));
  }
  if (text.starts_with(kAt)) {
    return source_form({}, text.substr(kAt.size()));
  }
  const std::size_t from = text.rfind(" from ");
  const std::size_t at = text.rfind(" at ");
  if (from != std::string_view::npos && (at == std::string_view::npos || from > at)) {
    return module_form(text.substr(0, from), text.substr(from + 6));
  }
  if (at != std::string_view::npos) {
    const std::string_view whole = text;
    std::vector<SourcePosition> inlined_by;
    take_inlined_calls(text, inlined_by);
    const std::size_t own_at = text.rfind(" at ");
    if (own_at == std::string_view::npos) {
      return module_form(whole, {});
    }
    Symbol symbol = source_form(text.substr(0, own_at), text.substr(own_at + 4));
    symbol.inlined_by = std::move(inlined_by);
    return symbol;
  }
  return module_form(text, {});
}

std::string format_resolved_frame(const Symbol& symbol) {
  std::string text;
  append_resolved_frame(text, symbol);
  return text;
}

void append_resolved_frame(std::string& text, const Symbol& symbol) {
  if (symbol.unknown()) {
    text += "in ??";
    return;
  }
  const SourcePosition& where = symbol.where;
  const bool source = !where.file.empty();
  const std::size_t start = text.size();
  text.reserve(start + text_size_bound(symbol));
  append_name(text, where);
  if (source || !symbol.module.empty()) {
    if (text.size() > start) {
      text += ' ';
    }
    if (source) {
      text += kAt;
      append_location(text, where);
    } else {
      text += kFrom;
      text += symbol.module;
    }
  }
  if (source) {
    for (const SourcePosition& call : symbol.inlined_by) {
      text += kInlinedBy;
      append_name(text, call);
      text += " at ";
      append_location(text, call);
      text += ')';
    }
  }
}

}  // namespace rtrace::sprtrace_text
