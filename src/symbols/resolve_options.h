// How backtrace addresses are turned into names.
#pragma once

#include <string>

namespace rtrace::symbols {

enum class ResolveMethod {
  DebugInfo,    // `f() at file.c:42` where DWARF covers the address, else the symbol table
  SymbolTable,  // `f() from /path/module` only (the original's -t elf, postproc -r)
};

struct ResolveOptions {
  ResolveMethod method = ResolveMethod::DebugInfo;
  // Prefix for every module and debug-file path: resolve a trace taken on another system.
  std::string root;
  // Source files with the path DWARF gives (usually absolute) instead of the base name.
  bool full_path = false;
  // Keep frames that arrive already resolved (resolved text input) instead of resolving again.
  bool keep_resolved = false;
};

}  // namespace rtrace::symbols
