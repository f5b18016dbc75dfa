#include "model/symbol.h"

#include "model/seeded_hash.h"

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

namespace {

// Folds `value` into `seed` (the boost::hash_combine step, with a 64-bit constant).
void mix(std::size_t& seed, std::size_t value) {
  seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

}  // namespace

// Keyed with the process's secret seed (seeded_hash.h): the names come from the files we read.
std::size_t SymbolTable::hash(const Symbol& symbol) {
  const std::uint64_t key = hash_seed();
  const auto text = [key](std::string_view s) {
    return static_cast<std::size_t>(seeded_hash(s.data(), s.size(), key));
  };
  std::size_t seed = text(symbol.module);
  const auto add = [&](const SourcePosition& p) {
    mix(seed, text(p.function));
    mix(seed, text(p.parameters));
    mix(seed, text(p.file));
    mix(seed, (std::size_t{p.line} << 32) | p.column);
  };
  add(symbol.where);
  for (const SourcePosition& call : symbol.inlined_by) {
    add(call);
  }
  return seed;
}

std::optional<SymbolId> SymbolTable::find(std::size_t hash, const Symbol& symbol) const {
  const auto [first, last] = ids_.equal_range(hash);
  for (auto entry = first; entry != last; ++entry) {
    if (at(entry->second) == symbol) {
      return entry->second;
    }
  }
  return std::nullopt;
}

SymbolTable::Interned SymbolTable::intern(const Symbol& symbol) {
  const std::size_t h = hash(symbol);
  if (const std::optional<SymbolId> id = find(h, symbol)) {
    return {*id, false};
  }
  symbols_.push_back(symbol);
  return add(h);
}

SymbolTable::Interned SymbolTable::intern(std::size_t hash, Symbol&& symbol) {
  if (const std::optional<SymbolId> id = find(hash, symbol)) {
    return {*id, false};
  }
  symbols_.push_back(std::move(symbol));
  return add(hash);
}

SymbolTable::Interned SymbolTable::add(std::size_t hash) {
  const auto id = static_cast<SymbolId>(symbols_.size());
  ids_.emplace(hash, id);
  return {id, true};
}

}  // namespace rtrace
