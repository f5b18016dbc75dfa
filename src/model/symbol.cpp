#include "model/symbol.h"

namespace rtrace {

std::pair<std::string_view, std::string_view> split_parameters(std::string_view text) {
  const std::size_t close = text.rfind(')');
  if (close == std::string_view::npos) {
    return {text, {}};
  }
  // Walk back to the parenthesis that opens the last list: "operator()(int)" and
  // "f(void (*)(int))" nest.
  int depth = 0;
  for (std::size_t i = close + 1; i-- > 0;) {
    if (text[i] == ')') {
      ++depth;
    } else if (text[i] == '(' && --depth == 0) {
      if (i == 0) {
        break;  // "(anonymous namespace)" alone is a name, not parameters
      }
      return {text.substr(0, i), text.substr(i)};
    }
  }
  return {text, {}};
}

std::string SymbolTable::key(const Symbol& symbol) {
  std::string key = symbol.module;
  const auto add = [&key](const SourcePosition& p) {
    key += '\0';
    key += p.function;
    key += '\0';
    key += p.parameters;
    key += '\0';
    key += p.file;
    key += '\0';
    key += std::to_string(p.line);
    key += ':';
    key += std::to_string(p.column);
  };
  add(symbol.where);
  for (const SourcePosition& call : symbol.inlined_by) {
    add(call);
  }
  return key;
}

SymbolTable::Interned SymbolTable::intern(const Symbol& symbol) {
  auto [entry, added] = ids_.try_emplace(key(symbol), 0);
  if (added) {
    symbols_.push_back(symbol);
    entry->second = static_cast<SymbolId>(symbols_.size());
  }
  return {entry->second, added};
}

SymbolTable::Interned SymbolTable::intern(std::string key, Symbol&& symbol) {
  auto [entry, added] = ids_.try_emplace(std::move(key), 0);
  if (added) {
    symbols_.push_back(std::move(symbol));
    entry->second = static_cast<SymbolId>(symbols_.size());
  }
  return {entry->second, added};
}

}  // namespace rtrace
