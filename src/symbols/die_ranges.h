// Small helpers over libdw for the address ranges of a DIE.
#pragma once

#include <dwarf.h>
#include <elfutils/libdw.h>

namespace rtrace::symbols {

// Calls `visit(low, high)` for every non-empty address range of `die`.
template <typename Visit>
void for_each_range(Dwarf_Die* die, Visit&& visit) {
  Dwarf_Addr base = 0;
  Dwarf_Addr start = 0;
  Dwarf_Addr end = 0;
  ptrdiff_t offset = 0;
  while ((offset = dwarf_ranges(die, offset, &base, &start, &end)) > 0) {
    if (start < end) {
      visit(start, end);
    }
  }
}

inline bool has_code(Dwarf_Die* die) {
  return dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges);
}

}  // namespace rtrace::symbols
