#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "model/symbol.h"

namespace rtrace {
namespace {

Symbol inlined_symbol() {
  Symbol symbol;
  symbol.module = "/usr/lib/libfoo.so";
  symbol.where = {"ns::inner", "(int) const", "inner.h", 12, 0};
  symbol.inlined_by = {{"ns::outer", "()", "outer.cpp", 40, 0}, {"main", "", "main.cpp", 7, 3}};
  return symbol;
}

// Every field tells symbols apart: a copy with one field changed gets an id of its own.
std::vector<std::function<void(Symbol&)>> one_field_changes() {
  return {
      [](Symbol& s) { s.module += 'x'; },
      [](Symbol& s) { s.where.function += 'x'; },
      [](Symbol& s) { s.where.parameters = "(long) const"; },
      [](Symbol& s) { s.where.file = "other.h"; },
      [](Symbol& s) { ++s.where.line; },
      [](Symbol& s) { ++s.where.column; },
      [](Symbol& s) { s.inlined_by.pop_back(); },
      [](Symbol& s) { s.inlined_by[1].function = "start"; },
      [](Symbol& s) { ++s.inlined_by[0].line; },
      // Moving text between fields keeps every byte but is another symbol.
      [](Symbol& s) {
        s.where.function += "(int)";
        s.where.parameters = " const";
      },
  };
}

TEST(SymbolTable, EqualSymbolsShareAnIdFromEitherIntern) {
  SymbolTable table;
  const Symbol symbol = inlined_symbol();
  const SymbolTable::Interned first = table.intern(symbol);
  EXPECT_TRUE(first.added);
  EXPECT_EQ(first.id, 1U);
  const SymbolTable::Interned again = table.intern(SymbolTable::hash(symbol), inlined_symbol());
  EXPECT_FALSE(again.added);
  EXPECT_EQ(again.id, first.id);
  EXPECT_EQ(table.intern(symbol).id, first.id);
  EXPECT_EQ(table.size(), 1U);
  EXPECT_EQ(table.at(first.id), symbol);
}

TEST(SymbolTable, EveryFieldTellsSymbolsApart) {
  SymbolTable table;
  const SymbolId base = table.intern(inlined_symbol()).id;
  std::vector<SymbolId> ids{base};
  for (const auto& change : one_field_changes()) {
    Symbol changed = inlined_symbol();
    change(changed);
    const SymbolTable::Interned interned = table.intern(changed);
    EXPECT_TRUE(interned.added);
    for (const SymbolId earlier : ids) {
      EXPECT_NE(interned.id, earlier);
    }
    ids.push_back(interned.id);
    EXPECT_EQ(table.at(interned.id), changed);
  }
}

// A hash made elsewhere may collide (or, from a careless caller, be anything): symbols with one
// hash are still told apart by their content.
TEST(SymbolTable, SymbolsWithOneHashAreComparedWhole) {
  SymbolTable table;
  constexpr std::size_t kSameHash = 42;
  const SymbolId base = table.intern(kSameHash, inlined_symbol()).id;
  std::vector<SymbolId> ids{base};
  for (const auto& change : one_field_changes()) {
    Symbol changed = inlined_symbol();
    change(changed);
    const Symbol copy = changed;
    const SymbolTable::Interned interned = table.intern(kSameHash, std::move(changed));
    EXPECT_TRUE(interned.added);
    EXPECT_EQ(table.at(interned.id), copy);
    ids.push_back(interned.id);
  }
  // Each of them found again among all the others with that hash.
  EXPECT_EQ(table.intern(kSameHash, inlined_symbol()).id, base);
  std::size_t i = 1;
  for (const auto& change : one_field_changes()) {
    Symbol changed = inlined_symbol();
    change(changed);
    const SymbolTable::Interned interned = table.intern(kSameHash, std::move(changed));
    EXPECT_FALSE(interned.added);
    EXPECT_EQ(interned.id, ids[i++]);
  }
}

}  // namespace
}  // namespace rtrace
