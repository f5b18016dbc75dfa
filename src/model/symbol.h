// What is known about a piece of code: the function, its module, its source position, and the
// calls that inlined it.
//
// Symbols are interned: a frame holds a SymbolId, and the symbol itself is announced to the sink
// once (TraceSink::symbol) before the first record that uses its id. Ids belong to one stream;
// a stage that makes its own symbols (the resolver) renumbers the ones it passes on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rtrace {

using SymbolId = std::uint32_t;
inline constexpr SymbolId kNoSymbol = 0;

// One position in the source.
struct SourcePosition {
  std::string function;    // without parameters: "main", "ns::Foo<int>::bar"
  std::string parameters;  // as the demangler prints them, qualifiers included: "(int) const"
  std::string file;        // as the producer chose to show it (base name or full path)
  std::uint32_t line = 0;  // 0: unknown
  std::uint32_t column = 0;

  std::string qualified_name() const { return function + parameters; }
  friend bool operator==(const SourcePosition&, const SourcePosition&) = default;
};

struct Symbol {
  std::string module;  // the file the code belongs to; empty when unknown
  SourcePosition where;
  // When `where` was inlined, the calls that inlined it, innermost first.
  std::vector<SourcePosition> inlined_by;

  // Nothing is known: the address lies outside every mapping.
  bool unknown() const {
    return module.empty() && where.function.empty() && where.parameters.empty() &&
           where.file.empty();
  }
  friend bool operator==(const Symbol&, const Symbol&) = default;
};

// Splits a printed function name into its name and its parameter list: "foo(int) const" ->
// {"foo", "(int) const"}; names without a balanced trailing parameter list are all name. The two
// parts always concatenate back to `text`.
std::pair<std::string_view, std::string_view> split_parameters(std::string_view text);

// Interns symbols for a producer that makes them (a reader, the resolver): equal symbols get one
// id; ids start at 1.
class SymbolTable {
 public:
  struct Interned {
    SymbolId id = kNoSymbol;
    bool added = false;  // first time seen: announce it
  };
  Interned intern(const Symbol& symbol);
  // The same for a symbol whose hash(symbol) was made beforehand (on another thread, say); the
  // symbol is kept by moving it.
  Interned intern(std::size_t hash, Symbol&& symbol);
  const Symbol& at(SymbolId id) const { return symbols_.at(id - 1); }
  std::size_t size() const { return symbols_.size(); }

  // Equal symbols, equal hashes; symbols with equal hashes are then compared whole.
  static std::size_t hash(const Symbol& symbol);

 private:
  // The id of the symbol equal to `symbol` among those with `hash`, if any.
  std::optional<SymbolId> find(std::size_t hash, const Symbol& symbol) const;
  // Files the symbol just appended under `hash`.
  Interned add(std::size_t hash);

  // The hash is already one: the map's own hash passes it through.
  struct Unhashed {
    std::size_t operator()(std::size_t hash) const { return hash; }
  };

  std::vector<Symbol> symbols_;
  std::unordered_multimap<std::size_t, SymbolId, Unhashed> ids_;
};

}  // namespace rtrace
