// Source lookup in one module's DWARF: function, file and line of an address, with the chain of
// inlined calls that put the code there.
//
// libdw answers "which scopes contain this address" by walking a compile unit's DIE tree from
// the top on every query. A trace asks that for thousands of addresses, so the index is built
// once and searched by address, in two levels, each on first use: a compile unit's functions
// (without entering their bodies), then the inlined calls inside one function, one scope at a
// time (FunctionBody).
#pragma once

#include <elfutils/libdw.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace rtrace::symbols {

// One frame of source: for the address itself, the innermost function and the line its code
// comes from; for every inlined call around it, the caller and the line of the call. The
// pointers stay valid as long as the DwarfIndex.
struct SourceFrame {
  const std::string* function = nullptr;  // display form ("f()", "ns::g(int)"); may be empty
  const char* file = "";                  // as DWARF gives it (usually absolute)
  int line = 0;
};

class DwarfIndex {
 public:
  // `bias`: what to subtract from a module address to get a DWARF address.
  DwarfIndex(Dwarf* dwarf, Dwarf_Addr bias);
  ~DwarfIndex();
  DwarfIndex(const DwarfIndex&) = delete;
  DwarfIndex& operator=(const DwarfIndex&) = delete;

  // Fills `frames` (innermost first) and returns true when a line-table row covers `address`.
  // `in_some_function`: whether a symbol says there is a function at the address. Only then is
  // a function missing from the compile unit's top level searched for everywhere in the unit
  // (a walk of the whole unit, once), instead of taking the address for padding.
  bool lookup(std::uint64_t address, bool in_some_function, std::vector<SourceFrame>& frames);

  // The number of the compile unit whose ranges hold `address` (a module address, as for
  // lookup), or none: lookups of addresses of one unit share its line table and functions.
  std::optional<std::size_t> unit_number(std::uint64_t address) const;

 private:
  class ScopeTree;
  class UnitScopes;
  struct Unit {
    Dwarf_Die die;
    std::unique_ptr<UnitScopes> scopes;  // built on first use
  };
  friend class UnitScopes;
  struct UnitRange {
    std::uint64_t low = 0;
    std::uint64_t high = 0;
    std::size_t unit = 0;
  };

  Unit* unit_at(std::uint64_t dwarf_address);
  const UnitRange* range_at(std::uint64_t dwarf_address) const;
  // Display name of a function DIE, demangled once per distinct name.
  const std::string& function_name(Dwarf_Die* die);
  const std::string& own_function_name(Dwarf_Die* die);  // without the origin cache

  Dwarf* dwarf_;
  Dwarf_Addr bias_;
  std::vector<Unit> units_;
  std::vector<UnitRange> ranges_;  // sorted by low
  // Keyed by the name's address in the string section: equal names share one entry.
  std::unordered_map<const char*, std::string> names_;
  // Where an abstract origin DIE sits in the (main or supplementary) debug data -> its name.
  std::unordered_map<const void*, const std::string*> by_origin_;
};

}  // namespace rtrace::symbols
