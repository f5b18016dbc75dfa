#include "formats/sprtrace_text/resolved_frame.h"

#include <algorithm>

namespace rtrace::sprtrace_text {
namespace {

constexpr std::string_view kFrom = "from ";
constexpr std::string_view kAt = "at ";
constexpr std::string_view kIn = "in ";
constexpr std::string_view kUnknown = "??";

constexpr std::string_view kInlinedBy = " (inlined by ";

SymbolInfo make(std::string_view function, SymbolInfo::Where where, std::string_view location) {
  SymbolInfo symbol;
  symbol.function = function;
  symbol.where = where;
  symbol.location = location;
  return symbol;
}

// Takes the ` (inlined by caller() at file:line)` suffixes off the end of `text`, innermost
// first in `calls`.
void take_inlined_calls(std::string_view& text, std::vector<SymbolInfo::InlinedCall>& calls) {
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
    calls.push_back({std::string(inner.substr(0, at)), std::string(inner.substr(at + 4))});
    text = text.substr(0, open);
  }
  std::reverse(calls.begin(), calls.end());
}

}  // namespace

SymbolInfo parse_resolved_frame(std::string_view text) {
  if (text.starts_with(kIn)) {
    text.remove_prefix(kIn.size());
    if (text == kUnknown) {
      return make({}, SymbolInfo::Where::Unknown, {});
    }
  }
  if (text.starts_with(kFrom)) {
    return make({}, SymbolInfo::Where::Module, text.substr(kFrom.size()));
  }
  if (text.starts_with(kAt)) {
    return make({}, SymbolInfo::Where::Source, text.substr(kAt.size()));
  }
  const std::size_t from = text.rfind(" from ");
  const std::size_t at = text.rfind(" at ");
  if (from != std::string_view::npos && (at == std::string_view::npos || from > at)) {
    return make(text.substr(0, from), SymbolInfo::Where::Module, text.substr(from + 6));
  }
  if (at != std::string_view::npos) {
    const std::string_view whole = text;
    std::vector<SymbolInfo::InlinedCall> inlined_by;
    take_inlined_calls(text, inlined_by);
    const std::size_t own_at = text.rfind(" at ");
    if (own_at == std::string_view::npos) {
      return make(whole, SymbolInfo::Where::Module, {});
    }
    SymbolInfo symbol =
        make(text.substr(0, own_at), SymbolInfo::Where::Source, text.substr(own_at + 4));
    symbol.inlined_by = std::move(inlined_by);
    return symbol;
  }
  return make(text, SymbolInfo::Where::Module, {});
}

std::string format_resolved_frame(const SymbolInfo& symbol) {
  if (symbol.where == SymbolInfo::Where::Unknown) {
    return "in ??";
  }
  const std::string_view keyword = symbol.where == SymbolInfo::Where::Source ? kAt : kFrom;
  std::string text = symbol.function;
  if (!symbol.location.empty()) {
    if (!text.empty()) {
      text += ' ';
    }
    text += keyword;
    text += symbol.location;
  }
  if (symbol.where == SymbolInfo::Where::Source) {
    for (const SymbolInfo::InlinedCall& call : symbol.inlined_by) {
      text += kInlinedBy;
      text += call.function;
      text += " at ";
      text += call.location;
      text += ')';
    }
  }
  return text;
}

}  // namespace rtrace::sprtrace_text
