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
  // Threads that look addresses up at once (each with its own handles on the files, as libdw's
  // handles must not be shared between threads); 1: everything on the calling thread, in
  // stream order. The answers, and so the output, are the same for every count.
  unsigned jobs = 1;
};

}  // namespace rtrace::symbols
