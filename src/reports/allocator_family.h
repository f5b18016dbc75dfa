// Which family of allocator a traced call belongs to, so that the report can tell a block
// released by the wrong function (`new[]` freed by `free`, `malloc` freed by `delete`, `mi_malloc`
// freed by `tc_free`, ...) and say which allocator a block came from.
#pragma once

#include <cstdint>
#include <string_view>

namespace rtrace::reports {

// Malloc: the C allocator's functions (whichever library provides them); New, NewArray: C++'s
// operators (and tcmalloc's tc_new, tc_newarray); Mimalloc, Jemalloc, Tcmalloc: those libraries'
// own entry points (mi_*, *allocx, tc_*).
enum class AllocatorFamily : std::uint8_t {
  Unknown,
  Malloc,
  New,
  NewArray,
  Mimalloc,
  Jemalloc,
  Tcmalloc
};

// The family of the function that allocated a block ("malloc", "operator new[](unsigned
// long)", "mi_malloc", ...); Unknown for anything else (file descriptors, GL objects...).
AllocatorFamily allocation_family(std::string_view function);
// The family of the function that released a block ("free", "operator delete(void*)",
// "mi_free", ...).
AllocatorFamily release_family(std::string_view function);

// The allocator a family's blocks come from, as the report names it ("malloc", "operator new",
// "mimalloc", ...); empty for Unknown.
std::string_view allocator_name(AllocatorFamily family);

// Both calls are memory calls of families that do not release each other's blocks. mimalloc,
// jemalloc and tcmalloc provide the process's malloc family when they are linked or preloaded
// (Debian builds them so): their blocks and malloc's are the same, and either family's release
// matches the other's allocation. Two of those libraries' own families never match each other.
bool mismatched(AllocatorFamily allocated, AllocatorFamily released);

}  // namespace rtrace::reports
