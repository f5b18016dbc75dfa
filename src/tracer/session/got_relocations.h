// What the GOT patcher (got_patcher.h) reads of a loaded object, from its dynamic section in
// memory: the exported functions (its dynamic symbol table) and the GOT entries that bind a
// function by name (its PLT relocations, and the GLOB_DAT ones of code that calls through the
// GOT without a PLT, as the C library does for malloc). The relocation types are the only part
// that depends on the machine.
#pragma once

#include <link.h>

#include <cstddef>
#include <cstdint>

namespace rtrace::tracer {

#if defined(__x86_64__)
inline constexpr std::uint32_t kJumpSlotRelocation = R_X86_64_JUMP_SLOT;
inline constexpr std::uint32_t kGlobalDataRelocation = R_X86_64_GLOB_DAT;
#elif defined(__aarch64__)
inline constexpr std::uint32_t kJumpSlotRelocation = R_AARCH64_JUMP_SLOT;
inline constexpr std::uint32_t kGlobalDataRelocation = R_AARCH64_GLOB_DAT;
#else
#error "the GOT patcher knows the relocations of x86-64 and aarch64 only"
#endif

struct DynamicObject {
  const void* key = nullptr;  // its dynamic section: one per loaded object; null without one
  ElfW(Addr) base = 0;
  std::uintptr_t low = 0;  // the range its loadable segments cover
  std::uintptr_t high = 0;
  std::uintptr_t relro_low = 0;  // read-only after relocation (PT_GNU_RELRO)
  std::uintptr_t relro_high = 0;
  const ElfW(Sym) * symbols = nullptr;
  const char* strings = nullptr;
  const std::uint32_t* gnu_hash = nullptr;
  const std::uint32_t* sysv_hash = nullptr;
  const ElfW(Half) * versions = nullptr;
  const ElfW(Rela) * plt_relocations = nullptr;
  std::size_t plt_relocation_count = 0;
  const ElfW(Rela) * relocations = nullptr;
  std::size_t relocation_count = 0;

  bool contains(const void* address) const {
    const auto value = reinterpret_cast<std::uintptr_t>(address);
    return value >= low && value < high;
  }
  bool in_relro(const void* address) const {
    const auto value = reinterpret_cast<std::uintptr_t>(address);
    return value >= relro_low && value < relro_high;
  }
  // The number of entries of the dynamic symbol table (from its hash table).
  std::uint32_t symbol_count() const;
  // Whether symbol `index` is a function this object defines and exports (default version).
  bool exports_function(std::uint32_t index) const;
};

DynamicObject read_dynamic_object(const dl_phdr_info& info);

// Calls `visit(name, address)` for every function `object` exports.
template <typename Visit>
void for_each_exported_function(const DynamicObject& object, Visit&& visit) {
  if (object.symbols == nullptr || object.strings == nullptr) {
    return;
  }
  const std::uint32_t count = object.symbol_count();
  for (std::uint32_t i = 1; i < count; ++i) {
    if (object.exports_function(i)) {
      const ElfW(Addr) address = object.base + object.symbols[i].st_value;
      // NOLINTNEXTLINE(performance-no-int-to-ptr): an address the ELF tables hold as a number
      visit(object.strings + object.symbols[i].st_name, reinterpret_cast<void*>(address));
    }
  }
}

// Calls `visit(name, slot, lazy)` for every GOT entry of `object` that binds a function by name;
// `lazy`: a PLT entry, which may still hold the stub that binds it at the first call.
template <typename Visit>
void for_each_function_slot(const DynamicObject& object, Visit&& visit) {
  if (object.symbols == nullptr || object.strings == nullptr) {
    return;
  }
  const auto visit_table = [&](const ElfW(Rela) * table, std::size_t count, std::uint32_t type) {
    for (std::size_t i = 0; table != nullptr && i < count; ++i) {
      const ElfW(Rela)& relocation = table[i];
      const auto symbol = static_cast<std::uint32_t>(ELF64_R_SYM(relocation.r_info));
      if (ELF64_R_TYPE(relocation.r_info) != type || symbol == 0) {
        continue;
      }
      const ElfW(Addr) slot = object.base + relocation.r_offset;
      // NOLINTNEXTLINE(performance-no-int-to-ptr): an address the ELF tables hold as a number
      visit(object.strings + object.symbols[symbol].st_name, reinterpret_cast<void**>(slot),
            type == kJumpSlotRelocation);
    }
  };
  visit_table(object.plt_relocations, object.plt_relocation_count, kJumpSlotRelocation);
  visit_table(object.relocations, object.relocation_count, kGlobalDataRelocation);
}

}  // namespace rtrace::tracer
