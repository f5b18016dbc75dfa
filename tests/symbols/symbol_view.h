// The resolver's answer in the three forms the tools print (`fn() at file:line`,
// `fn() from /module`, `in ??`), so tests can state expectations the way the original tools'
// outputs show them.
#pragma once

#include <string>
#include <vector>

#include "model/symbol.h"

namespace rtrace::test {

struct InlinedView {
  std::string function;  // with parameters
  std::string location;  // "file:line"
};

struct SymbolView {
  enum class Where { Module, Source, Unknown };
  std::string function;  // with parameters; may be empty
  Where where = Where::Module;
  std::string location;  // the module path, or "file:line"; empty for Unknown
  std::vector<InlinedView> inlined_by;
};

inline std::string location_of(const SourcePosition& p) {
  return p.line == 0 ? p.file : p.file + ":" + std::to_string(p.line);
}

inline SymbolView view(const Symbol& s) {
  SymbolView v;
  if (s.unknown()) {
    v.where = SymbolView::Where::Unknown;
    return v;
  }
  v.function = s.where.qualified_name();
  const bool source = !s.where.file.empty();
  v.where = source ? SymbolView::Where::Source : SymbolView::Where::Module;
  v.location = source ? location_of(s.where) : s.module;
  for (const SourcePosition& call : s.inlined_by) {
    v.inlined_by.push_back({call.qualified_name(), location_of(call)});
  }
  return v;
}

}  // namespace rtrace::test
