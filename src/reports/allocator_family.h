// Which family of allocator a traced call belongs to, so that the report can tell a block
// released by the wrong function (`new[]` freed by `free`, `malloc` freed by `delete`, ...).
#pragma once

#include <cstdint>
#include <string_view>

namespace rtrace::reports {

enum class AllocatorFamily : std::uint8_t { Unknown, Malloc, New, NewArray };

// The family of the function that allocated a block ("malloc", "operator new[](unsigned
// long)", ...); Unknown for anything else (file descriptors, GL objects...).
AllocatorFamily allocation_family(std::string_view function);
// The family of the function that released a block ("free", "operator delete(void*)", ...).
AllocatorFamily release_family(std::string_view function);

// Both calls are memory calls of different families.
inline bool mismatched(AllocatorFamily allocated, AllocatorFamily released) {
  return allocated != AllocatorFamily::Unknown && released != AllocatorFamily::Unknown &&
         allocated != released;
}

}  // namespace rtrace::reports
